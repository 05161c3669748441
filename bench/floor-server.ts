import cluster from 'node:cluster';
import Fastify from 'fastify';

/**
 * The floor: a bare Fastify route answering a constant JSON object, nothing else. With WORKERS=N (N > 1) it runs as
 * svc does (src/cluster.ts): a node:cluster primary that serves nothing and N workers on the one port, each the
 * same bare server, which also answers /pid (its process id: how the bench knows that every worker listens).
 */
const workers = Number(process.env.WORKERS ?? 1);

if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // A worker that dies is not replaced (the bench's load would show it); on SIGTERM each worker is stopped.
  let stopping = false;
  process.on('SIGTERM', () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
  cluster.on('exit', () => {
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
} else {
  const app = Fastify({ logger: false });
  const body = { svc_id: 'efo_01j0000000000000000000000', value: 'constant', is_disabled: false };
  app.get('/', async () => body);
  if (cluster.isWorker) app.get('/pid', async () => ({ pid: process.pid }));
  const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`${JSON.stringify({ address })}\n`);
}
