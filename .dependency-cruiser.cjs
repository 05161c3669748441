/**
 * The walls between the layers (docs/design.md draws them). `npm run lint` fails on any import that crosses one.
 * Type-only imports count like any other: a wall that types may cross is not a wall.
 */
const MODULE = '^src/modules/([^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycles anywhere: each file can be read (and loaded) after the files it uses.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'modules-through-services',
      severity: 'error',
      comment:
        "A module uses another module only through that module's service (its *.service.ts): never its " +
        'repository, routes, schemas or tables.',
      from: { path: MODULE },
      to: {
        path: '^src/modules/',
        pathNot: ['^src/modules/$1/', '\\.service\\.ts$'],
      },
    },
    {
      name: 'rules-not-transport',
      severity: 'error',
      comment: 'Services and repositories know nothing of HTTP: routes (and src/http) translate requests to calls.',
      from: { path: '^src/modules/.+\\.(service|repository)\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'sql-in-repositories',
      severity: 'error',
      comment: 'Only repositories (and db/) build SQL: a service or route that imports kysely is writing queries.',
      from: { path: '^src/modules/', pathNot: '\\.(repository|tables)\\.ts$' },
      to: { path: '^node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-without-repositories',
      severity: 'error',
      comment: 'The CLI calls services, as the HTTP routes do.',
      from: { path: '^src/cli/' },
      to: { path: '^src/modules/.+\\.repository\\.ts$' },
    },
    {
      name: 'db-below-modules',
      severity: 'error',
      comment: 'db/ is the floor: it knows no module (modules add their tables to it) and no HTTP.',
      from: { path: '^src/db/' },
      to: { path: '^src/(modules|http|cli)/' },
    },
    {
      name: 'speed-below-modules',
      severity: 'error',
      comment:
        'src/speed/ is the one seam of hot-path speed machinery (its README): modules call it, it knows no module, ' +
        'no HTTP and no CLI.',
      from: { path: '^src/speed/' },
      to: { path: '^src/(modules|http|cli)/' },
    },
    {
      name: 'migrations-frozen',
      severity: 'error',
      comment:
        'A migration that has run must do the same on every later install: it imports only its helpers and Kysely.',
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/db/migrations/' },
    },
    {
      name: 'lib-is-a-leaf',
      severity: 'error',
      comment: 'lib/ holds plain helpers (clock, ids, cursors, shapes): it imports no layer above it.',
      from: { path: '^src/lib/' },
      to: { path: '^src/(modules|http|cli|db)/' },
    },
    {
      name: 'http-not-into-modules-internals',
      severity: 'error',
      comment: 'The HTTP layer calls module services, never their repositories.',
      from: { path: '^src/http/' },
      to: { path: '^src/modules/.+\\.repository\\.ts$' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'The SDK (client/) is its own package: it imports nothing of the service.',
      from: { path: '^client/' },
      to: { path: '^(src|test|bench|scripts)/' },
    },
    {
      name: 'console-through-the-sdk',
      severity: 'error',
      comment:
        'The console is its own package: it talks to the service only through @svc/client (client/src/index.ts), ' +
        'never the service, the tests or the SDK internals.',
      from: { path: '^console/' },
      to: { path: '^(src|test|bench|scripts)/|^client/src/integration/' },
    },
    {
      name: 'service-not-from-console',
      severity: 'error',
      comment: 'Nothing of the service, the SDK or the tools imports the console.',
      from: { path: '^(src|client|bench|scripts)/' },
      to: { path: '^console/' },
    },
    {
      name: 'service-not-from-tools',
      severity: 'error',
      comment: 'The service never imports its tests, benchmarks or build scripts.',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|coverage)/|client/src/openapi\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
