import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import './http/route-config.js';
import { completeRouteSchema, registerAuthentication } from './http/auth.js';
import { registerBodyLimits, registerJsonSeparatorLimit } from './http/body-limits.js';
import { registerBodyTimeout } from './http/body-timeout.js';
import { registerConsole } from './http/console.js';
import { registerDocs } from './http/docs.js';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { registerIdempotency } from './http/idempotency.js';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { configurePasswordHashing } from './modules/users/passwords.js';
import { registerClientRateLimit, registerRateLimits, registerSignInRateLimit } from './http/rate-limit.js';
import { genRequestId } from './http/request-id.js';
import { registerRequestLog } from './http/request-log.js';
import { registerSandbox } from './http/sandbox-faults.js';
import { ErrorResponse } from './http/schemas.js';
import { AccountingRecord } from './modules/accounting/accounting.schemas.js';
import { RecordEventShape } from './modules/accounting/review.schemas.js';
import { FieldValue } from './modules/field-values/field-values.schemas.js';
import { Field } from './modules/fields/fields.schemas.js';
import { buildLazySerializer } from './http/serialization.js';
import { registerNulGuard } from './http/text-guard.js';
import { validatorCompiler } from './http/validation.js';
import { authorizationRoutes } from './modules/auth/authorization.routes.js';
import { clientsRoutes } from './modules/auth/clients.routes.js';
import { tokenRoutes } from './modules/auth/token.routes.js';
import { fieldsRoutes } from './modules/fields/fields.routes.js';
import { fieldValuesRoutes } from './modules/field-values/field-values.routes.js';
import { accountingRoutes } from './modules/accounting/accounting.routes.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { AccountEvent, CompatReadyForExport, webhooksDocument } from './modules/webhooks/events.schemas.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { codingRulesRoutes } from './modules/coding-rules/coding-rules.routes.js';
import { suggestionsRoutes } from './modules/suggestions/suggestions.routes.js';
import { Suggestion } from './modules/suggestions/suggestions.schemas.js';
import { suggestionsService } from './modules/suggestions/suggestions.service.js';
import { draftsRoutes } from './modules/drafts/drafts.routes.js';
import { exportsRoutes } from './modules/exports/exports.routes.js';
import { configureReceiptLinks } from './modules/receipts/receipt-links.service.js';
import { receiptsRoutes } from './modules/receipts/receipts.routes.js';
import { receiptsService, receiptStore } from './modules/receipts/receipts.service.js';
import { usersService } from './modules/users/users.service.js';
import { registerMetrics, type MetricsScope } from './modules/system/metrics.js';
import { systemRoutes } from './modules/system/system.routes.js';

export interface AppDeps {
  db: Db;
  /** Rate-limit counters without Redis: this process's memory by default; a cluster worker's are the primary's. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
  /** In a cluster worker: /metrics answers for every worker (server.ts decides). */
  metricsScope?: MetricsScope;
  /** True once the server is shutting down: /readyz answers 503 (server.ts). */
  draining?: () => boolean;
  /** false silences request logs (tests); otherwise JSON logs at config.logLevel. */
  logger?: boolean;
}

/** TRUST_PROXY as Fastify takes it: a hop count as the function proxy-addr asks, addresses as they are. */
function trustedProxies(trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** Builds the whole application; never listens (server.ts does). */
/** The largest request head (request line and headers) a client may send; larger ones are answered 431. */
export const MAX_HEAD_BYTES = 64 * 1024;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const { db } = deps;
  configurePasswordHashing(config.passwordHash);
  const app = Fastify({
    logger:
      deps.logger === false
        ? false
        : {
            level: config.logLevel,
            // ISO-8601 times; `npm start | npx pino-pretty` reads them for a person at a terminal.
            timestamp: () => `,"time":"${new Date().toISOString()}"`,
          },
    // Fastify's own two lines per request are off: http/request-log.ts writes one as the request completes.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustedProxies(config.trustProxy),
    genReqId: genRequestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    // Node's own clocks for a connection, from config: a client that dribbles its headers is cut after
    // HEADERS_TIMEOUT_MS, a whole request after REQUEST_TIMEOUT_MS, an idle kept-alive connection after
    // KEEP_ALIVE_TIMEOUT_MS; Node checks them every second rather than every 30 (its default).
    // A request head may be 64 KiB (Node's default is 16): the spec's records query takes 500 ids as a repeated
    // parameter, an 18 KB URL with svc's ids, and room is left for longer ids and the other headers.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000, maxHeaderSize: MAX_HEAD_BYTES },
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs + 5000,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    frameworkErrors,
    schemaController: { compilersFactory: { buildSerializer: buildLazySerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Requests are validated by the service's own ajv instances (src/http/validation.ts): every problem of every
  // request part, compiled on first use. Request schemas refer to no shared schema.
  app.setValidatorCompiler(validatorCompiler);

  // Shared schemas are added here, at the root, before any route plugin: a plugin that added its own would get a
  // fresh validator from Fastify's default factory (lib/schema-controller.js) instead of the one set above.
  for (const schema of [
    ErrorResponse,
    Field,
    FieldValue,
    AccountingRecord,
    RecordEventShape.schema,
    CompatReadyForExport,
    AccountEvent,
    Suggestion,
  ])
    app.addSchema(schema);
  registerErrorHandling(app);
  // JSON only: any other body is 415 (the token endpoint adds form bodies in its own scope).
  app.removeContentTypeParser(['text/plain']);
  registerJsonSeparatorLimit(app);

  // Hooks on every request take a callback rather than an async function: no promise per request.
  const hsts = config.hstsMaxAgeSeconds > 0 ? `max-age=${config.hstsMaxAgeSeconds}; includeSubDomains` : null;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // No answer is ever to be read as another type than it says (a JSON error as HTML, a CSV as script).
    reply.header('x-content-type-options', 'nosniff');
    if (hsts !== null) reply.header('strict-transport-security', hsts);
    const route = request.routeOptions.config;
    if (route.holdsSecret === true || route.idempotency === 'refused') {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    }
    done();
  });
  registerBodyTimeout(app, config.requestTimeoutMs);
  const metrics = registerMetrics(app, deps.metricsScope);
  app.addHook('onRoute', completeRouteSchema);
  registerBodyLimits(app, config.bodyLimitBytes);

  await registerDocs(app, { webhooks: webhooksDocument() });

  const limits = await registerRateLimits(app, config, deps.rateLimitStore);
  registerSignInRateLimit(app, limits.signIn);
  // Before the console's scope is registered: a root hook added after a scope does not reach its routes.
  registerNulGuard(app);
  const sessions = await registerConsole(app, db, config);
  registerAuthentication(app, db, sessions);
  registerClientRateLimit(app, limits.client);
  registerRequestLog(app);
  registerIdempotency(app, db);
  if (config.sandbox) await registerSandbox(app, db, config);

  await app.register(systemRoutes(db, metrics, config.metricsToken, deps.draining));
  await app.register(
    tokenRoutes(
      db,
      config.tokenTtlSeconds,
      limits.token,
      // A token's commit waits no longer than a request may take (TokenWriter).
      config.requestTimeoutMs,
    ),
  );
  await app.register(clientsRoutes(db));
  await app.register(authorizationRoutes(db, config.publicUrl));
  await app.register(fieldsRoutes(db));
  await app.register(fieldValuesRoutes(db));
  await app.register(
    accountingRoutes(db, config.receipts.perRecord, {
      // The console's record answer carries the record's suggestions (of the same read); accounting cannot import
      // the suggestions module, which builds on it.
      suggestionsOf: async (ex, tenant, id) => (await suggestionsService.forRecords(ex, tenant, [id]))[0]!.suggestions,
    }),
  );
  await app.register(integrationsRoutes(db));
  await app.register(
    webhooksRoutes(db, {
      allowPrivate: config.webhookAllowPrivateTargets,
      allowLoopback: config.webhookAllowLoopbackTargets,
    }),
  );
  await app.register(auditRoutes(db));
  await app.register(codingRulesRoutes(db));
  await app.register(suggestionsRoutes(db));
  await app.register(draftsRoutes(db));
  await app.register(exportsRoutes(db));
  configureReceiptLinks({
    secret: config.receipts.linkSecret ?? (await usersService.receiptLinkSecret(db)),
    baseUrl: config.publicUrl,
    ttlSeconds: config.receipts.linkTtlSeconds,
  });
  const receipts = receiptsService({
    store: receiptStore(config.receipts.dir),
    maxBytes: config.receipts.maxBytes,
    perRecord: config.receipts.perRecord,
  });
  await app.register(receiptsRoutes(db, receipts, config.receipts.maxBytes));

  return app;
}
