import Fastify from 'fastify';

/** The floor: a bare Fastify route answering a constant JSON object, nothing else. */
const app = Fastify({ logger: false });
const body = { svc_id: 'efo_01j0000000000000000000000', value: 'constant', is_disabled: false };
app.get('/', async () => body);
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ address })}\n`);
