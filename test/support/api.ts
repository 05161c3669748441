import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { EXPORT_RESULTS, INGEST, item, reviewUrl, type Item } from './accounting.js';
import { valuesUrl } from './field-values.js';

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

export type Method = NonNullable<InjectOptions['method']>;
export type Query = Record<string, string | string[]>;

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  query?: Query;
}

/** The body of an answer, JSON when it parses, the text otherwise. */
export function parseBody(text: string): any {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A client of one account with a real token: requests, and the factories that make the account's data through
 * the API (`api.newField()`, `api.newRecord({ type: 'BILL_EXPENSE' })`). The factories live here rather than on
 * the test context because every object belongs to an account and needs a token with its scopes: tests that
 * juggle two accounts say whose the object is (`stranger.newField()`). How requests reach the server (app.inject,
 * or real HTTP) is the subclass's.
 */
export abstract class ApiClient<Extra extends object = object> {
  constructor(
    readonly token: string | null,
    readonly accountId: string,
    readonly clientId: string,
  ) {}

  abstract request<T = any>(method: Method, url: string, options?: RequestOptions): Promise<Response<T> & Extra>;

  get<T = any>(url: string, query?: Query, headers?: Record<string, string>) {
    return this.request<T>('GET', url, { query, headers });
  }
  post<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', url, { body, headers });
  }
  /** POST with a fresh Idempotency-Key, as a client SDK would send on creates. */
  create<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', url, { body, headers: { 'idempotency-key': randomUUID(), ...headers } });
  }
  put<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', url, { body, headers });
  }
  patch<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', url, { body, headers });
  }
  delete<T = any>(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('DELETE', url, { body, headers });
  }

  /** A new field (fields.write): an ACCOUNTING field named Department unless overridden. Answers its svc_id. */
  async newField(overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await this.create('/v1/fields', { name: 'Department', group: 'ACCOUNTING', ...overrides });
    expect(res.status, res.text).toBe(200);
    return res.body.svc_id;
  }

  /** New values of a field (field_values.write), as answered. */
  async newValues(fieldId: string, items: Record<string, unknown>[]): Promise<any[]> {
    const res = await this.create(valuesUrl(fieldId), { items });
    expect(res.status, res.text).toBe(200);
    return res.body.items;
  }

  /** A field with values (a coding of record lines), made through the API: the field and its values as answered. */
  async newCoding(name: string, values: { value: string; remote_id?: string }[], remoteId?: string) {
    const field = await this.create('/v1/fields', {
      name,
      group: 'ACCOUNTING',
      ...(remoteId ? { remote_id: remoteId } : {}),
    });
    expect(field.status, field.text).toBe(200);
    return { field: field.body, values: await this.newValues(field.body.svc_id, values) };
  }

  /**
   * New records (accounting.record.admin), each `item(overrides)`: a 171.75 USD card expense unless overridden.
   * Sent 1000 (the most one request takes) at a time; answered as created, in order.
   */
  async newRecords(overrides: Item[]): Promise<any[]> {
    const created: any[] = [];
    for (let i = 0; i < overrides.length; i += 1000) {
      const res = await this.post(INGEST, { items: overrides.slice(i, i + 1000).map((o) => item(o)) });
      expect(res.status, res.text).toBe(200);
      created.push(...res.body.items);
    }
    return created;
  }

  async newRecord(overrides: Item = {}): Promise<any> {
    return (await this.newRecords([overrides]))[0];
  }

  /** A record already READY_FOR_EXPORT. */
  async readyRecord(overrides: Item = {}): Promise<any> {
    return this.newRecord({ review_status: 'READY_FOR_EXPORT', ...overrides });
  }

  /** A record EXPORTED (accounting.record.write): made READY_FOR_EXPORT, then reported exported. As created. */
  async exportedRecord(overrides: Item = {}): Promise<any> {
    const record = await this.readyRecord(overrides);
    const res = await this.post(EXPORT_RESULTS, { results: [{ accounting_record_id: record.id, success: {} }] });
    expect(res.status, res.text).toBe(200);
    return record;
  }

  /** Moves a record along `path` of review states (accounting.record.admin); answers the last answer. */
  async moveTo(id: string, path: string[]): Promise<any> {
    let body: any;
    for (const status of path) {
      const res = await this.post(reviewUrl(id), { review_status: status });
      expect(res.status, res.text).toBe(200);
      body = res.body;
    }
    return body;
  }
}

/** A client of the app in this process, through app.inject. */
export class Api extends ApiClient {
  constructor(
    readonly app: FastifyInstance,
    token: string | null,
    accountId: string,
    clientId: string,
  ) {
    super(token, accountId, clientId);
  }

  async request<T = any>(method: Method, url: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token && headers.authorization === undefined) headers.authorization = `Bearer ${this.token}`;
    const res = await this.app.inject({
      method,
      url,
      query: options.query,
      headers,
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    });
    return { status: res.statusCode, headers: res.headers, body: parseBody(res.body), text: res.body };
  }
}
