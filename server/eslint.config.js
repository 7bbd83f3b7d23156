// Lint rules for the server (src, test, scripts): typescript-eslint's recommended set, as in web/eslint.config.js
// without the React rules, and the server layering of ARCHITECTURE.md as import rules.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// ---- Server layering -----------------------------------------------------------------------------------------
// DuckDB is reached only through src/duck; a routes.ts reaches no database, repo or DuckDB module (its service
// does); an area reaches another area's tables only through that area's service, never its repo.ts.
const duckdbPackage = { name: '@duckdb/node-api', message: 'DuckDB is reached through server/src/duck/ only.' };
const crossAreaRepo = { regex: '^\\.\\./[^/.][^/]*/repo(\\.js)?$', message: "Another area's tables are reached through its service, not its repo.ts." };
const routesData = [
  { regex: '(^|/)db(/|\\.js$|$)', message: 'A routes.ts holds no SQL: the db modules are for the area\'s repo.ts (call the service).' },
  { regex: '(^|/)repo(\\.js)?$', message: 'A routes.ts calls its service, which calls the repo.' },
  { regex: '(^|/)duck(/|$)', message: 'A routes.ts holds no DuckDB: its service reads the data.' },
];
const restrict = (paths, patterns) => ({ 'no-restricted-imports': ['error', { paths, patterns }] });
// nor the database or DuckDB handles of the app's context (app.ctx.db, const { db } = app.ctx)
const handle = '/^(db|duckdb)$/';
const routesHandles = [
  { selector: `MemberExpression[object.property.name='ctx'][property.name=${handle}]`, message: 'A routes.ts holds no SQL or DuckDB: call the service.' },
  { selector: `VariableDeclarator[init.property.name='ctx'] > ObjectPattern > Property[key.name=${handle}]`, message: 'A routes.ts holds no SQL or DuckDB: call the service.' },
];

// Every SQL statement is in a repo.ts (or the db modules that create the tables): a kysely statement built anywhere
// else in src fails. The db handle itself may travel (a service hands it to its repo).
const sqlHome = ['src/**/repo.ts', 'src/**/db.ts', 'src/db/**'];
const kyselyStatement = {
  selector: 'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)$/]',
  message: "SQL belongs in the area's repo.ts (ARCHITECTURE.md \"Server layering\"): add the statement there and call it.",
};

// Settings are read only in src/config.ts (ARCHITECTURE.md "Server layering"): anywhere else in src, process.env is
// refused; the few exceptions say why inline (eslint-disable-next-line no-restricted-properties -- <reason>).
const processEnv = { object: 'process', property: 'env', message: 'Settings are read only in src/config.ts: add the setting there and read it from the app\'s config (ctx.config).' };

// Stored JSON (a column, an engine's file, a token) is read through its zod declaration (src/db/stored.ts
// storedJson, or a job kind's parseStored), never cast: `JSON.parse(x) as T` and `const v: T = JSON.parse(x)` fail
// (T = unknown passes: the value is then checked before use).
const jsonCasts = [
  {
    selector: "TSAsExpression[typeAnnotation.type!='TSUnknownKeyword'][expression.callee.object.name='JSON'][expression.callee.property.name='parse']",
    message: 'Stored JSON is parsed, never cast: read it with storedJson(what, schema, text) from src/db/stored.ts.',
  },
  {
    selector: "VariableDeclarator[id.typeAnnotation][id.typeAnnotation.typeAnnotation.type!='TSUnknownKeyword'][init.callee.object.name='JSON'][init.callee.property.name='parse']",
    message: 'Stored JSON is parsed, never typed by annotation: read it with storedJson(what, schema, text) from src/db/stored.ts.',
  },
];

export default tseslint.config(
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2022, globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['src/**/*.ts'], ignores: ['src/config.ts'], rules: { 'no-restricted-properties': ['error', processEnv] } },
  // later blocks replace the rule for the files they match, so each repeats the restrictions before it
  { files: ['src/**/*.ts'], ignores: ['src/duck/**'], rules: restrict([duckdbPackage], []) },
  { files: ['src/features/**/*.ts'], rules: restrict([duckdbPackage], [crossAreaRepo]) },
  { files: ['src/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...jsonCasts] } },
  { files: ['src/**/*.ts'], ignores: sqlHome, rules: { 'no-restricted-syntax': ['error', kyselyStatement, ...jsonCasts] } },
  {
    files: ['src/**/routes.ts'],
    rules: {
      ...restrict([duckdbPackage, { name: 'kysely', message: 'A routes.ts holds no SQL (call the service).' }], [crossAreaRepo, ...routesData]),
      'no-restricted-syntax': ['error', kyselyStatement, ...routesHandles, ...jsonCasts],
    },
  },
);
