// What `npm pack` ships imports, at run time, only packages the package depends on: a
// devDependency is absent from an install, so an import of one works in the checkout and fails
// for every user. And each dependency is used by something shipped, so that an install does
// not carry what only the project's tests need.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const CODE = /\.[cm]?[jt]s$/;

/** The package names `source` loads when it runs: type-only imports are erased, so not counted. */
function runtimeImports(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && node.importClause?.phaseModifier !== ts.SyntaxKind.TypeKeyword) {
      // Under verbatimModuleSyntax `import { type A } from 'a'` still loads 'a'.
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier !== undefined) {
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isCallExpression(node) && loadsModule(node.expression)) {
      const [first] = node.arguments;
      if (first !== undefined && ts.isStringLiteralLike(first)) specifiers.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...new Set(specifiers.filter(isPackage).map(packageName))];
}

/** import('x'), import.meta.resolve('x') and require('x'). */
function loadsModule(callee: ts.Expression): boolean {
  if (callee.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isIdentifier(callee)) return callee.text === 'require';
  return (
    ts.isPropertyAccessExpression(callee) &&
    callee.name.text === 'resolve' &&
    ts.isMetaProperty(callee.expression) &&
    callee.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

function isPackage(specifier: string): boolean {
  return !specifier.startsWith('.') && !specifier.startsWith('node:') && !builtinModules.includes(specifier);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The code files `npm pack` puts in the tarball, by npm's own reading of "files" (no prepack). */
function shippedCodeFiles(): string[] {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [pack] = JSON.parse(output) as [{ files: { path: string }[] }];
  return pack.files.map((f) => f.path).filter((path) => CODE.test(path) && !path.endsWith('.d.ts'));
}

describe('runtimeImports', () => {
  it('counts every form of loading a package, by package name, and nothing else', () => {
    const source = [
      "import { a } from 'plain';",
      "import { type B } from 'kept-by-verbatim-module-syntax';",
      "import type { C } from 'erased';",
      "export { d } from '@scope/reexported/sub';",
      "export type { E } from 'erased-too';",
      "const f = await import('dynamic/deep/path.js');",
      "const g = import.meta.resolve('resolved');",
      "const h = require('required');",
      "import { readFileSync } from 'node:fs';",
      "import { join } from 'path';",
      "import { local } from './local.ts';",
    ].join('\n');
    expect(runtimeImports('x.ts', source).sort()).toEqual([
      '@scope/reexported',
      'dynamic',
      'kept-by-verbatim-module-syntax',
      'plain',
      'required',
      'resolved',
    ]);
  });
});

describe('the packed package', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const dependencies = new Set(Object.keys(manifest.dependencies));
  const files = shippedCodeFiles();
  const imports = files.map((file) => ({
    file,
    packages: runtimeImports(file, readFileSync(join(ROOT, file), 'utf8')),
  }));

  it('ships the CLI, the reference gateway and the suites', () => {
    expect(files).toEqual(
      expect.arrayContaining(['bin/agentconf.js', 'cli/main.ts', 'protocol/loading/bundled-import.js']),
    );
  });

  it('imports at run time only packages in "dependencies"', () => {
    const undeclared = imports.flatMap(({ file, packages }) =>
      packages.filter((name) => !dependencies.has(name)).map((name) => `${file} imports ${name}`),
    );
    expect(undeclared, 'move the package to "dependencies", or the file out of "files"').toEqual([]);
  });

  it('uses every package in "dependencies"', () => {
    const used = new Set(imports.flatMap(({ packages }) => packages));
    const unused = [...dependencies].filter((name) => !used.has(name));
    expect(unused, 'no shipped file imports these: devDependencies?').toEqual([]);
  });
});
