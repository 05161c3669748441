import fs from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyHelmet from '@fastify/helmet';
import fastifySession from '@fastify/session';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { AuthContext } from '../modules/auth/auth.service.js';
import { sessionRoutes } from '../modules/users/session.routes.js';
import { DbSessionStore, sessionCaller, type SessionLimits } from '../modules/users/sessions.js';
import { usersService } from '../modules/users/users.service.js';

export const SESSION_COOKIE = 'svc_session';

/** What the authentication hook needs of console sessions (filled in when the console scope is registered). */
export interface SessionGate {
  /** The caller a request's session cookie signs in, or null (no cookie, unknown, ended, or nobody's). */
  caller(request: FastifyRequest): Promise<AuthContext | null>;
  /** @fastify/csrf-protection's check, as an onRequest hook: 403 CSRF_TOKEN_INVALID without the token. */
  csrf: onRequestHookHandler;
}

// The console's pages: scripts, styles and fonts only from the service itself, no inline script or style
// element, no framing. connect-src 'self': the console talks to this service alone.
const CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
};

/**
 * Console sign-in and the console itself: @fastify/cookie for every request (API requests may carry the
 * session cookie), and a scope with @fastify/session (sessions in the database), @fastify/csrf-protection,
 * @fastify/helmet (strict CSP) for the /auth routes and the /console pages. The API's routes stay outside that
 * scope: a request with a bearer token pays for no session, and the authentication hook loads a session only
 * for a request that carries the cookie (through the gate).
 */
export async function registerConsole(app: FastifyInstance, db: Db, config: Config): Promise<SessionGate> {
  await app.register(fastifyCookie);
  // Served over https (PUBLIC_URL says so): the cookie is Secure and SameSite=Strict always, under the __Host-
  // prefix (no Domain, Path=/, Secure: no subdomain can set or shadow it), and HSTS keeps browsers on https.
  // Over plain http (a laptop), `secure: 'auto'` leaves Secure out and the plugin relaxes SameSite to Lax.
  const overTls = config.publicUrl.startsWith('https://');
  const cookieName = overTls ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
  const limits: SessionLimits = {
    idle: config.sessionIdleMinutes * 60_000_000,
    absolute: config.sessionAbsoluteHours * 3_600_000_000,
  };
  const secret = await usersService.cookieSecret(db);
  let gate: SessionGate | null = null;

  await app.register(async (scope) => {
    await scope.register(fastifySession, {
      secret,
      cookieName,
      store: new DbSessionStore(db, limits, app.log),
      saveUninitialized: false,
      // Idle expiry is the store's (last_seen_at); the cookie lives as long as the session may.
      rolling: false,
      cookie: {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: overTls ? true : 'auto',
        maxAge: Math.floor(limits.absolute / 1000),
      },
    });
    await scope.register(fastifyCsrf, { sessionPlugin: '@fastify/session' });
    await scope.register(fastifyHelmet, {
      contentSecurityPolicy: CSP,
      hsts: overTls ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      frameguard: { action: 'deny' },
    });

    const decrypt = scope.decryptSession.bind(scope);
    const csrfProtection = scope.csrfProtection.bind(scope);
    gate = {
      async caller(request) {
        const cookie = request.cookies[cookieName];
        if (!cookie) return null;
        await new Promise<void>((resolve, reject) =>
          decrypt(cookie, request, (error?: Error) => (error ? reject(error) : resolve())),
        );
        return sessionCaller(db, request.session);
      },
      csrf: csrfProtection,
    };

    await scope.register(sessionRoutes(db, limits, csrfProtection, config.publicUrl));
    await registerConsolePages(scope, config.consoleDir);
  });
  if (!gate) throw errors.internal();
  return gate;
}

const HASHED = /\/assets\//;

/** The built console (console/dist): hashed assets cached for a year, everything else revalidated. */
async function registerConsolePages(scope: FastifyInstance, dir: string): Promise<void> {
  const index = path.join(dir, 'index.html');
  if (!fs.existsSync(index)) {
    scope.get('/console/*', { schema: { hide: true } }, async (_request, reply: FastifyReply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build` (it writes console/dist).'),
    );
    scope.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
    return;
  }
  await scope.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    wildcard: false,
    index: false,
    setHeaders(reply, file) {
      reply.header('cache-control', HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // Every other /console path is a page of the application: its index.html, which routes in the browser.
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    // A missing file (an asset of an older build) is a 404, not the page.
    if (/\.[A-Za-z0-9]+$/.test(request.url.split('?')[0] ?? '')) throw errors.routeNotFound('GET', request.url);
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  };
  scope.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
  scope.get('/console/', { schema: { hide: true } }, page);
  scope.get('/console/*', { schema: { hide: true } }, page);
}
