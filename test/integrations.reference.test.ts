import fs from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { disconnectUrl, INTEGRATION, newVendor, reactivateUrl } from './support/integrations.js';
import { routeScopes } from './support/routes.js';

/**
 * The reference API, read as it is: its schemas judge svc's answers. A verbatim copy lives in test/fixtures (a
 * clone of this repository has no ../shared); where the shared contract is present, the copy is held to it.
 */
const COPY = new URL('./fixtures/reference/accounting-api.openapi.json', import.meta.url);
const SHARED = new URL('../../shared/reference/accounting-api.openapi.json', import.meta.url);
const reference = JSON.parse(fs.readFileSync(COPY, 'utf8'));
// Reported skipped where the shared contract is absent (a clone of this repository), not passed.
it.skipIf(!fs.existsSync(SHARED))('holds its copy of the reference to the shared contract', () => {
  expect(fs.readFileSync(COPY, 'utf8')).toBe(fs.readFileSync(SHARED, 'utf8'));
});

const OPERATIONS = {
  createIntegration: ['post', '/v3/accounting/integration'],
  disconnectIntegration: ['post', '/v3/accounting/integration/{integration_id}/disconnect'],
  reactivateIntegration: ['post', '/v3/accounting/integration/{integration_id}/reactivate'],
} as const;
type OperationId = keyof typeof OPERATIONS;

/** An OpenAPI 3.0 schema as JSON Schema: `nullable: true` is "or null" (ajv takes it only beside a type). */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, jsonSchema(v)]));
  return nullable === true ? { anyOf: [converted, { type: 'null' }] } : converted;
}

// `example` is OpenAPI's, not JSON Schema's (strict: false lets it be); formats are checked.
const ajv = addFormatsModule.default(new Ajv({ strict: false, allErrors: true }));
ajv.addSchema({ $id: 'reference', components: jsonSchema(reference.components) });

/** The reference's schema of this operation's answer with this status, compiled. */
function answerSchema(operation: OperationId, status: number) {
  const [method, path] = OPERATIONS[operation];
  const response = reference.paths[path][method].responses[String(status)];
  if (!response) throw new Error(`the reference lists no ${status} for ${operation}`);
  const ref: string = response.content['application/json'].schema.$ref;
  return ajv.compile({ $ref: `reference${ref}` });
}

/** The details members the reference's example of this error shows. */
function exampleDetails(operation: OperationId, status: number, errorCode: string): string[] {
  const [method, path] = OPERATIONS[operation];
  const examples = reference.paths[path][method].responses[String(status)].content['application/json'].examples;
  const example = Object.values<{ value: { error_code: string; details?: object } }>(examples).find(
    (e) => e.value.error_code === errorCode,
  );
  if (!example) throw new Error(`the reference shows no ${errorCode} for ${operation}`);
  return Object.keys(example.value.details ?? {}).sort();
}

/** Sends the request and holds its answer to the reference's schema for its status. */
async function conforms(operation: OperationId, api: Api, url: string, body?: unknown) {
  const res = await api.post(url, body);
  const validate = answerSchema(operation, res.status);
  expect({ operation, status: res.status, errors: validate(res.body) ? null : validate.errors }).toEqual({
    operation,
    status: res.status,
    errors: null,
  });
  return res;
}

describeEachDialect('integrations: the answers of the reference operations, judged by the reference schemas', (t) => {
  it("serves the reference's three operations: its paths, methods, operationIds and scopes", async () => {
    const ours = (await t.ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const table = routeScopes(ours);
    for (const [operationId, [method, path]] of Object.entries(OPERATIONS)) {
      const theirs = reference.paths[path][method];
      expect(theirs.operationId).toBe(operationId);
      const route = table.find((r) => r.path === path && r.method === method.toUpperCase());
      expect(route?.operation.operationId).toBe(operationId);
      expect(route?.scopes).toEqual(theirs.security.flatMap((s: Record<string, string[]>) => s.oauth2));
    }
    const body = reference.components.schemas.CreateIntegrationRequest;
    const ourBody = ours.paths[INTEGRATION].post.requestBody.content['application/json'].schema;
    expect(Object.keys(ourBody.properties).sort()).toEqual(Object.keys(body.properties).sort());
    expect([...ourBody.required].sort()).toEqual([...body.required].sort());
  });

  it('answers every outcome of create, disconnect and reactivate as the reference schemas say', async () => {
    const api = await t.ctx.as(['accounting.integration.write']);
    const [vendor, other] = [await newVendor(t.ctx.db), await newVendor(t.ctx.db)];

    const created = await conforms('createIntegration', api, INTEGRATION, { vendor, vendor_account_id: 'a-1' });
    expect(created.status).toBe(200);
    const id: string = created.body.integration_id;
    // The schema bites: without integration_id (the examples' id alone) the answer would not conform.
    const { integration_id: _, ...examplesOnly } = created.body;
    expect(answerSchema('createIntegration', 200)(examplesOnly)).toBe(false);
    expect((await conforms('createIntegration', api, INTEGRATION, { vendor, vendor_account_id: 'a-1' })).status).toBe(
      200,
    );
    const otherVendor = await conforms('createIntegration', api, INTEGRATION, {
      vendor: other,
      vendor_account_id: 'a',
    });
    expect([otherVendor.status, otherVendor.body.error_code]).toEqual([409, 'ACTIVE_INTEGRATION_EXISTS']);
    expect(Object.keys(otherVendor.body.details).sort()).toEqual(
      exampleDetails('createIntegration', 409, 'ACTIVE_INTEGRATION_EXISTS'),
    );
    const mismatch = await conforms('createIntegration', api, INTEGRATION, { vendor, vendor_account_id: 'a-2' });
    expect([mismatch.status, mismatch.body.error_code]).toEqual([409, 'VENDOR_ACCOUNT_ID_MISMATCH']);
    expect(Object.keys(mismatch.body.details).sort()).toEqual(
      exampleDetails('createIntegration', 409, 'VENDOR_ACCOUNT_ID_MISMATCH'),
    );
    const invalid = await conforms('createIntegration', api, INTEGRATION, { vendor });
    expect([invalid.status, invalid.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
    const unknownVendor = await conforms('createIntegration', api, INTEGRATION, {
      vendor: 'ERP_NOBODY',
      vendor_account_id: 'a',
    });
    expect(unknownVendor.status).toBe(400);

    const disconnected = await conforms('disconnectIntegration', api, disconnectUrl(id));
    expect([disconnected.status, disconnected.body.status]).toEqual([200, 'DISABLED']);
    const notActive = await conforms('disconnectIntegration', api, disconnectUrl(id));
    expect([notActive.status, notActive.body.error_code]).toEqual([409, 'INTEGRATION_NOT_ACTIVE']);
    expect(Object.keys(notActive.body.details).sort()).toEqual(
      exampleDetails('disconnectIntegration', 409, 'INTEGRATION_NOT_ACTIVE'),
    );
    expect((await conforms('disconnectIntegration', api, disconnectUrl('int_none'))).status).toBe(404);

    const second = await conforms('createIntegration', api, INTEGRATION, { vendor: other, vendor_account_id: 'b' });
    expect(second.status).toBe(200);
    const exists = await conforms('reactivateIntegration', api, reactivateUrl(id));
    expect([exists.status, exists.body.error_code]).toEqual([409, 'ACTIVE_INTEGRATION_EXISTS']);
    expect(Object.keys(exists.body.details).sort()).toEqual(
      exampleDetails('reactivateIntegration', 409, 'ACTIVE_INTEGRATION_EXISTS'),
    );
    expect((await conforms('disconnectIntegration', api, disconnectUrl(second.body.integration_id))).status).toBe(200);
    const reactivated = await conforms('reactivateIntegration', api, reactivateUrl(id));
    expect([reactivated.status, reactivated.body.status]).toEqual([200, 'ACTIVE']);
    expect((await conforms('reactivateIntegration', api, reactivateUrl('int_none'))).status).toBe(404);

    // The reference's examples name the identifier id, its schema integration_id: both are answered.
    const example = reference.paths[INTEGRATION].post.responses['200'].content['application/json'].examples;
    const shown = Object.keys(example.created_integration.value).sort();
    expect(shown.every((key) => key in reactivated.body)).toBe(true);
  });

  it('answers 401 and 403 in the reference error shape', async () => {
    const reader = await t.ctx.as(['accounting.integration.read']);
    const forbidden = await conforms('createIntegration', reader, INTEGRATION, { vendor: 'X', vendor_account_id: 'a' });
    expect(forbidden.status).toBe(403);
    const anonymous = await reader.request('POST', disconnectUrl('int_x'), { headers: { authorization: '' } });
    expect(answerSchema('disconnectIntegration', anonymous.status)(anonymous.body)).toBe(true);
    expect(anonymous.status).toBe(401);
  });
});
