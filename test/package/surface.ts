import { relative } from 'node:path';
import ts from 'typescript';

/** What one package entry exports, and the types its API names that no entry gives a user. */
export interface EntrySurface {
  /** Names that exist at run time (functions, classes, constants), sorted. */
  values: string[];
  /** Names that are types only (interfaces, type aliases), sorted. */
  types: string[];
  /** `Name (file)` of each type the entry's API reaches that neither it nor the base exports. */
  unexported: string[];
}

/**
 * Reads the surface of each entry from its type declarations (`entries`: entry → `.d.ts`
 * file) with the TypeScript checker. A type is "reached" when an exported declaration names
 * it — in a parameter, a result, a property, a base class — directly or through other reached
 * types; private, protected and `_friend` members and `implements` clauses do not count.
 * Every reached type declared under `root` must be exported by the same entry or by `base`,
 * the entry every other one builds on, so a user can name every type of the API they import.
 * A constant a type is derived from (`typeof readOptions`) need not be exported; the types
 * its declaration names must.
 */
export function readSurface(
  entries: Record<string, string>,
  root: string,
  base: string,
): Record<string, EntrySurface> {
  const program = ts.createProgram(Object.values(entries), {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const resolve = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exportsOf = (entry: string) => {
    const source = program.getSourceFile(entries[entry] ?? '');
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry}: cannot read ${entries[entry]}`);
    const exported = new Map<ts.Symbol, { name: string; value: boolean }>();
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = resolve(symbol);
      const value = Boolean(target.flags & ts.SymbolFlags.Value) && !isTypeOnly(symbol);
      exported.set(target, { name: symbol.name, value });
    }
    return exported;
  };
  const inRoot = (declaration: ts.Node) =>
    !relative(root, declaration.getSourceFile().fileName).startsWith('..');
  const fromBase = exportsOf(base);
  const surface: Record<string, EntrySurface> = {};
  for (const entry of Object.keys(entries)) {
    const exported = exportsOf(entry);
    const unexported = new Set<string>();
    const seen = new Set<ts.Symbol>();
    const visit = (symbol: ts.Symbol, named = true) => {
      const declarations = symbol.declarations ?? [];
      if (seen.has(symbol) || !declarations.some(inRoot)) return;
      seen.add(symbol);
      if (named && !exported.has(symbol) && !fromBase.has(symbol)) {
        const file = declarations[0]?.getSourceFile().fileName ?? '?';
        unexported.add(`${symbol.name} (${relative(root, file)})`);
      }
      for (const declaration of declarations) walk(declaration);
    };
    const walk = (node: ts.Node): void => {
      if (isHidden(node)) return;
      const name = referencedName(node);
      const symbol = name && checker.getSymbolAtLocation(name);
      if (symbol && !(resolve(symbol).flags & ts.SymbolFlags.TypeParameter)) {
        visit(resolve(symbol), !isDerivedFrom(node, resolve(symbol)));
      }
      ts.forEachChild(node, walk);
    };
    for (const symbol of exported.keys()) visit(symbol);
    const names = (value: boolean) =>
      [...exported.values()]
        .filter((name) => name.value === value)
        .map(({ name }) => name)
        .sort();
    surface[entry] = {
      values: names(true),
      types: names(false),
      unexported: [...unexported].sort(),
    };
  }
  return surface;
}

/** `export type { Foo }`: a class exported for its type only has no value at run time. */
function isTypeOnly(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some(
    (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
  );
}

/**
 * `typeof readOptions`: a type derived from a constant (`OptionsOf<typeof readOptions>`). The
 * user names the derived type, never the constant, so the constant need not be exported; the
 * types its declaration names still must be.
 */
function isDerivedFrom(node: ts.Node, symbol: ts.Symbol): boolean {
  return ts.isTypeQueryNode(node) && (symbol.flags & ts.SymbolFlags.Variable) !== 0;
}

/** The name a type position refers to: `Foo` in `x: Foo<T>`, `extends Foo`, `typeof foo`. */
function referencedName(node: ts.Node): ts.Node | undefined {
  if (ts.isTypeReferenceNode(node)) return node.typeName;
  if (ts.isExpressionWithTypeArguments(node)) return node.expression;
  if (ts.isTypeQueryNode(node)) return node.exprName;
  if (ts.isImportTypeNode(node)) return node.qualifier;
  return undefined;
}

/**
 * Not part of the API: private and protected members, `#private` fields, `_friend` members
 * (the package's classes talking to each other), and `implements` clauses (a class's own
 * members say what it offers).
 */
function isHidden(node: ts.Node): boolean {
  if (ts.isHeritageClause(node)) return node.token === ts.SyntaxKind.ImplementsKeyword;
  if (!ts.isClassElement(node) && !ts.isTypeElement(node)) return false;
  const name = node.name;
  if (name && ts.isPrivateIdentifier(name)) return true;
  if (name && ts.isIdentifier(name) && name.text.startsWith('_')) return true;
  if (!ts.isClassElement(node)) return false;
  const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}
