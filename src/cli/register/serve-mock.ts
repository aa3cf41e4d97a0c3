import { type Command, Option } from 'commander';
import { SERVER_SETS } from '../../sim/family/sets.js';
import { collect, formerFlag, numberArg } from '../parsers.js';
import { exitWith } from '../program.js';
import type { ServeMockOptions } from '../serve-mock.js';

/** Registers `ratewise serve-mock`. */
export function registerServeMock(program: Command): Command {
  return program
    .command('serve-mock')
    .description('serve a server model on 127.0.0.1 until Ctrl-C (GET /__stats shows what it saw)')
    .option('--model <name>', 'a model from --list, or several joined with + (fixed-window+ramp)')
    .option('--rate <r>', 'the model parameter rate: req/s, or steps like 30,10@10000')
    .option('--latency-ms <ms>', 'the model parameter latencyMs')
    .addOption(formerFlag('--latency <ms>', '--latency-ms'))
    .option(
      '--port <port>',
      'port to listen on (0: any free one)',
      numberArg({ integer: true, max: 65_535 }),
      0,
    )
    .option('--param <key=value>', 'any model parameter (repeatable)', collect, [])
    .option('--seed <n>', 'seed of the model randomness', numberArg({ integer: true }), 0)
    .option('--json', 'print {"url","port","model"} as one JSON line once listening')
    .option('--list', 'print the model catalog and exit')
    .option(
      '--family-index <i>',
      'serve server i of the randomized family (see bench --family) instead of --model',
      numberArg({ integer: true }),
    )
    .option('--family-seed <n>', 'seed of the family sample', numberArg({ integer: true }))
    .addOption(
      new Option(
        '--family-set <set>',
        'with --family-index: the set it draws from — the family, or limits as deployed (see bench --field)',
      ).choices(SERVER_SETS),
    )
    .option('--record <file>', 'with --family-index: write what the server saw here on exit (JSON)')
    .action((options: ServeMockOptions) =>
      exitWith(
        import('../serve-mock.js').then(({ serveMockCommand }) => serveMockCommand(options)),
      ),
    );
}
