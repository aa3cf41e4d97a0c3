import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgram, runProgram } from '../../src/cli/program.js';
import { registerAnalyze } from '../../src/cli/register/analyze.js';
import { registerBaseline } from '../../src/cli/register/baseline.js';
import { registerDiagnose } from '../../src/cli/register/diagnose.js';
import { registerReport } from '../../src/cli/register/report.js';

function program() {
  const p = createProgram();
  registerAnalyze(p);
  registerReport(p);
  registerBaseline(p);
  registerDiagnose(p);
  return p;
}

async function run(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => {
    err.push(String(c));
    return true;
  });
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => {
    out.push(String(c));
    return true;
  });
  try {
    const code = await runProgram(program(), args);
    return { code, stderr: err.join(''), stdout: out.join('') };
  } finally {
    e.mockRestore();
    o.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('analyze, report, baseline, diagnose on the ratewise program', () => {
  it('bad option values, unknown options and missing arguments: one line, exit 2', async () => {
    const cases = [
      ['analyze', 'x.log', '--window', 'abc'],
      ['analyze', 'x.log', '--windw', '5'],
      ['report'],
      ['baseline', 'capture', 'http://a.example/', '--requests', '2.5'],
      ['baseline', 'check', 'x.log', '--threshold', '0.5'],
      ['diagnose', 'http://a.example/', '--max-concurrency', '0'],
      // Out of the library options' range: caught by the parser, not at run time.
      ['diagnose', 'http://a.example/', '--max-concurrency', '5000'],
      ['analyze', 'x.log', '--window', '0.0001'],
      ['report', 'x.log', '--window', '0.0001'],
    ];
    for (const args of cases) {
      const { code, stderr } = await run(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(/^ratewise: /);
    }
    const { stderr } = await run(['diagnose', 'http://a.example/', '--max-concurrency', '5000']);
    expect(stderr).toMatch(/--max-concurrency.*expected an integer from 1 to 4096\.\n$/);
  });

  it('a runtime usage problem from an action is exit 2 too (unreadable log)', async () => {
    const { code, stderr } = await run(['analyze', '/nonexistent/ratewise.log']);
    expect(code).toBe(2);
    expect(stderr).toBe('ratewise: cannot read /nonexistent/ratewise.log: ENOENT\n');
  });
});
