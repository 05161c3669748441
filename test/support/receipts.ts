import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import type { ApiClient } from './api.js';
import { parseBody, type Response } from './api.js';
import type { TestContext } from './context.js';

/** The receipts routes and what their test files share. */
export const receiptsUrl = (recordId: string) => `/internal/v1/accounting/records/${recordId}/receipts`;
export const RECEIPT_WRITER = ['accounting.record.admin', 'accounting.record.read', 'events.read'] as const;

/**
 * Sizes no earlier image of this process had: an image's size is in its header, so each one's bytes are its own
 * (random widths among 200 gave two uploads of "distinct" receipts the same bytes once in 200 pairs).
 */
let sizes = 0;
const nextSize = () => {
  const n = sizes++;
  return { width: 64 + (n % 200), height: 48 + (Math.floor(n / 200) % 200) };
};

const image = (format: 'jpeg' | 'png' | 'webp', width = 64, height = 48) => {
  const canvas = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } });
  return (format === 'jpeg' ? canvas.jpeg() : format === 'png' ? canvas.png() : canvas.webp()).toBuffer();
};

/** A small PDF a reader opens: one empty page. */
export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** One file of each accepted type (fresh bytes each call: each is a receipt of its own). */
export async function samples(): Promise<Record<'jpeg' | 'png' | 'webp' | 'pdf', { bytes: Buffer; type: string }>> {
  return {
    jpeg: { bytes: await sized('jpeg'), type: 'image/jpeg' },
    png: { bytes: await sized('png'), type: 'image/png' },
    webp: { bytes: await sized('webp'), type: 'image/webp' },
    pdf: { bytes: Buffer.concat([PDF, Buffer.from(`% ${Math.random()}\n`)]), type: 'application/pdf' },
  };
}

const sized = (format: 'jpeg' | 'png' | 'webp') => {
  const { width, height } = nextSize();
  return image(format, width, height);
};

/**
 * A JPEG of its own (distinct bytes). Of `width` when given: then distinct from every other width, and from the
 * sized ones (a height they never have).
 */
export async function newJpeg(width?: number): Promise<Buffer> {
  return width === undefined ? sized('jpeg') : image('jpeg', width, 47);
}

/** Uploads `bytes` as the raw body with `contentType`. */
export function uploadRaw(
  api: ApiClient,
  recordId: string,
  bytes: Buffer,
  contentType: string,
  headers: Record<string, string> = {},
) {
  return api.request('POST', receiptsUrl(recordId), {
    body: bytes,
    headers: { 'content-type': contentType, ...headers },
  });
}

/** A multipart/form-data body with one file (and a text field before it, as forms send). */
export function multipartBody(bytes: Buffer, filename: string, contentType: string) {
  const boundary = `----svc${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nlunch\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export function uploadMultipart(
  api: ApiClient,
  recordId: string,
  bytes: Buffer,
  filename = 'receipt.jpg',
  declared = 'image/jpeg',
  headers: Record<string, string> = {},
) {
  const { body, contentType } = multipartBody(bytes, filename, declared);
  return uploadRaw(api, recordId, body, contentType, headers);
}

/** GET a signed link as a browser would: no token, the link alone (its path and query on `app`). */
export async function follow(
  app: FastifyInstance,
  uri: string,
  headers: Record<string, string> = {},
): Promise<Response & { raw: Buffer }> {
  const url = new URL(uri);
  const res = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: parseBody(res.body),
    text: res.body,
    raw: res.rawPayload,
  };
}

/** The stored receipt rows of an account, and the bytes PostgreSQL keeps. */
export async function storedReceipts(ctx: TestContext, accountId: string) {
  return ctx.db.direct.selectFrom('receipts').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}
export async function storedContents(ctx: TestContext, accountId: string) {
  return ctx.db.direct.selectFrom('receipt_contents').select(['sha256']).where('account_id', '=', accountId).execute();
}
/** The receipts each record of the account lists, as the receipt links (accounting_record_receipts, 0030) hold them. */
export async function storedLinks(ctx: TestContext, accountId: string) {
  return ctx.db.direct
    .selectFrom('accounting_record_receipts')
    .select(['record_id', 'receipt_id'])
    .where('account_id', '=', accountId)
    .orderBy('record_id')
    .orderBy('receipt_id')
    .execute();
}

/** A receipt's SHA-256 (its name in either store). */
export const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The bytes as the dialect's store keeps them: files under the data folder, or rows of receipt_contents. */
export async function storedBlobs(ctx: TestContext, accountId: string): Promise<string[]> {
  if (ctx.dialect === 'postgres') return (await storedContents(ctx, accountId)).map((r) => r.sha256).sort();
  const folder = path.join(ctx.config.receipts.dir!, Buffer.from(accountId).toString('base64url'));
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .flatMap((prefix) => fs.readdirSync(path.join(folder, prefix)))
    .sort();
}

/** Where the file store keeps an account's receipt (files/store.ts's name for it). */
export const receiptFile = (ctx: TestContext, accountId: string, sha256: string) =>
  path.join(ctx.config.receipts.dir!, Buffer.from(accountId).toString('base64url'), sha256.slice(0, 2), sha256);

/** The bytes a store keeps for a receipt replaced by hand (`null`: deleted), as an operator's mistake would. */
export async function changeStoredBytes(ctx: TestContext, accountId: string, sha256: string, bytes: Buffer | null) {
  if (ctx.dialect === 'sqlite') {
    const file = receiptFile(ctx, accountId, sha256);
    if (bytes === null) fs.rmSync(file);
    else fs.writeFileSync(file, bytes);
    return;
  }
  const { direct } = ctx.db;
  if (bytes === null) {
    await direct
      .deleteFrom('receipt_contents')
      .where('account_id', '=', accountId)
      .where('sha256', '=', sha256)
      .execute();
    return;
  }
  await direct
    .updateTable('receipt_contents')
    .set({ content: bytes })
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .execute();
}
