import type { Page } from 'playwright-core';
import type { AccountingRecord, FieldValue, RecordCreate, SvcClient } from '../../client/src/index.js';
import type { ConsoleServer } from './browser.js';
import { newAccountId } from './context.js';

/** What the coding rules' browser files share: the rules list, and an account with a chart and card records. */

export const RULES_TABLE = 'Coding rules in precedence order';

/** The rules the list shows, in order, by name (each row's link). */
export const shownRuleNames = (page: Page) =>
  page.getByRole('table', { name: RULES_TABLE }).getByRole('row').getByRole('link').allInnerTexts();

export interface RulesAccount {
  accountId: string;
  api: SvcClient;
  /** GL Account's and Department's field ids */
  gl: string;
  department: string;
  /** by name: Travel (6100), Meals (6200), Software (6300) of GL Account; Sales (D10), Engineering (D20) */
  values: Record<string, FieldValue>;
  /**
   * Card records: `coded` (Acme Travel, 120 USD, in REVIEW, coded Travel and Sales), `second` (Acme Travel, 80, in
   * REVIEW), `third` (ACME TRAVEL, 45.50, in PREPARE), `bottle` (Blue Bottle, 12.50, in REVIEW) and `ready` (Acme
   * Travel, 99, READY_FOR_EXPORT); none but `coded` coded.
   */
  r: Record<'coded' | 'second' | 'third' | 'bottle' | 'ready', AccountingRecord>;
}

/** A new account of `server` with GL Account and Department and the card records above, and its SDK client. */
export async function rulesAccount(server: ConsoleServer): Promise<RulesAccount> {
  const accountId = newAccountId();
  const api = await server.apiClient(accountId);
  const gl = (await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' })).svc_id;
  const department = (await api.fields.create({ name: 'Department', group: 'ACCOUNTING' })).svc_id;
  const values: Record<string, FieldValue> = {};
  const created = [
    ...(
      await api.fieldValues.create(gl, [
        { value: 'Travel', remote_id: '6100' },
        { value: 'Meals', remote_id: '6200' },
        { value: 'Software', remote_id: '6300' },
      ])
    ).items,
    ...(
      await api.fieldValues.create(department, [
        { value: 'Sales', remote_id: 'D10' },
        { value: 'Engineering', remote_id: 'D20' },
      ])
    ).items,
  ];
  for (const v of created) values[v.value] = v;

  const card = (name: string, amount: number, extra: Partial<RecordCreate> = {}): RecordCreate => ({
    type: 'CARD_EXPENSE_POST',
    amount: { amount, currency: 'USD' },
    posted_at: '2026-11-10T09:00:00Z',
    review_status: 'REVIEW',
    vendor: { id: `v_${name.replaceAll(' ', '_')}`, name },
    ...extra,
  });
  const records = await api.review.createRecords([
    card('Acme Travel', 120, {
      lines: [
        {
          amount: { amount: 120, currency: 'USD' },
          field_values: [
            { field_id: gl, svc_id: values.Travel!.svc_id },
            { field_id: department, svc_id: values.Sales!.svc_id },
          ],
        },
      ],
    }),
    card('Acme Travel', 80),
    card('ACME TRAVEL', 45.5, { review_status: 'PREPARE' }),
    card('Blue Bottle', 12.5),
    card('Acme Travel', 99, { review_status: 'READY_FOR_EXPORT' }),
  ]);
  const [coded, second, third, bottle, ready] = records.items;
  return {
    accountId,
    api,
    gl,
    department,
    values,
    r: { coded: coded!, second: second!, third: third!, bottle: bottle!, ready: ready! },
  };
}
