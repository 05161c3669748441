import type { AccountingRecord } from '@svc/client';
import { useState } from 'react';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatMoney } from '../../../lib/format';
import { describeCoding, lineNumbers } from '../lines';

type View = 'double' | 'single';

/** The record's lines: double entry (economic lines and the balancing line), or single entry (economic only). */
export function LineItemsTable({ record, singleEntry }: { record: AccountingRecord; singleEntry: AccountingRecord }) {
  const [view, setView] = useState<View>('double');
  const numbers = lineNumbers(singleEntry);
  const lines = view === 'double' ? record.line_items : singleEntry.line_items;
  return (
    <>
      <div className="toggle-group" role="group" aria-label="Line items view">
        <button type="button" aria-pressed={view === 'double'} onClick={() => setView('double')}>
          Double entry
        </button>
        <button type="button" aria-pressed={view === 'single'} onClick={() => setView('single')}>
          Single entry
        </button>
      </div>
      <ScrollRegion label="Line items table">
        <table className="data-table">
          <caption className="visually-hidden">
            {view === 'double' ? 'Line items, double entry' : 'Line items, single entry'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Side</th>
              <th scope="col" className="numeric">
                Amount
              </th>
              <th scope="col" className="numeric">
                Original amount
              </th>
              <th scope="col">Memo</th>
              <th scope="col">Coding</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line) => {
              const number = numbers.get(line.id);
              return (
                <tr key={line.id}>
                  <th scope="row">{number === undefined ? 'Balancing' : `Line ${number}`}</th>
                  <td>{line.type === 'DEBIT' ? 'Debit' : 'Credit'}</td>
                  <td className="numeric nowrap">{formatMoney(line.amount)}</td>
                  <td className="numeric nowrap">{formatMoney(line.original_amount)}</td>
                  <td>{line.memo ?? '—'}</td>
                  <td>
                    {number === undefined ? (
                      <span className="muted">Not coded (balancing line)</span>
                    ) : (
                      (describeCoding(line.accounting_field_values) ?? <span className="muted">Uncoded</span>)
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}
