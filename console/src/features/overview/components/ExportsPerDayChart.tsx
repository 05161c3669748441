import type { AccountingOverview } from '@svc/client';
import { useId, useState } from 'react';
import { Link } from 'wouter';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDay, plural } from '../../../lib/format';

type Day = AccountingOverview['exports_per_day'][number];

const WIDTH = 600;
const HEIGHT = 180;
const PLOT = { left: 32, right: 8, top: 10, bottom: 24 };

/** A tick value at or above `max`: 1, 2, 5, 10, 20, 50… */
function niceMax(max: number): number {
  if (max <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

function Bars({ days }: { days: Day[] }) {
  const top = niceMax(Math.max(0, ...days.map((d) => d.exported + d.failed)));
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / Math.max(days.length, 1);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => PLOT.top + plotHeight - (value / top) * plotHeight;
  return (
    <g>
      <line className="chart-axis" x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(0)} y2={y(0)} />
      <line className="chart-grid" x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(top)} y2={y(top)} />
      <text className="chart-label" x={PLOT.left - 4} y={y(top) + 4} textAnchor="end">
        {top}
      </text>
      <text className="chart-label" x={PLOT.left - 4} y={y(0) + 4} textAnchor="end">
        0
      </text>
      {days.map((day, i) => {
        const x = PLOT.left + i * slot + (slot - barWidth) / 2;
        return (
          <g key={day.date}>
            {day.exported > 0 && (
              <rect
                className="chart-exported"
                x={x}
                width={barWidth}
                y={y(day.exported)}
                height={y(0) - y(day.exported)}
              />
            )}
            {day.failed > 0 && (
              <rect
                className="chart-failed"
                x={x}
                width={barWidth}
                y={y(day.exported + day.failed)}
                height={y(day.exported) - y(day.exported + day.failed)}
              />
            )}
            {(days.length - 1 - i) % 7 === 0 && (
              <text className="chart-label" x={x + barWidth / 2} y={HEIGHT - 6} textAnchor="middle">
                {formatDay(day.date)}
              </text>
            )}
          </g>
        );
      })}
    </g>
  );
}

/** A day's count, opening the queue to the same records (the overview counts records as exported_on finds them). */
function DayCount({ day, outcome, count }: { day: string; outcome: 'SUCCESS' | 'FAILURE'; count: number }) {
  if (count === 0) return <>0</>;
  const what = outcome === 'SUCCESS' ? 'exported' : 'whose export failed';
  return (
    <Link
      href={`/queue?exported_on=${day}&export_outcome=${outcome}`}
      aria-label={`${plural(count, 'record')} ${what} on ${formatDay(day)}: open in the review queue`}
    >
      {count}
    </Link>
  );
}

function DaysTable({ days }: { days: Day[] }) {
  return (
    <ScrollRegion label="Exports per day, as a table">
      <table className="data-table">
        <caption>Records exported and failed per day (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col" className="numeric">
              Exported
            </th>
            <th scope="col" className="numeric">
              Failed
            </th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row">
                <time dateTime={day.date}>{formatDay(day.date)}</time>
              </th>
              <td className="numeric">
                <DayCount day={day.date} outcome="SUCCESS" count={day.exported} />
              </td>
              <td className="numeric">
                <DayCount day={day.date} outcome="FAILURE" count={day.failed} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** Export reports per day over the last 30 days: stacked bars (exported, failed), or the same as a table. */
export function ExportsPerDayChart({ days }: { days: Day[] }) {
  const [asTable, setAsTable] = useState(false);
  const titleId = useId();
  const viewId = useId();
  const exported = days.reduce((sum, d) => sum + d.exported, 0);
  const failed = days.reduce((sum, d) => sum + d.failed, 0);
  const summary = `Exports per day over the last ${days.length} days: ${plural(exported, 'record')} exported, ${failed} failed.`;
  return (
    <figure className="chart">
      <figcaption id={titleId}>{summary}</figcaption>
      <button
        type="button"
        className="button-quiet"
        aria-pressed={asTable}
        aria-controls={viewId}
        onClick={() => setAsTable((shown) => !shown)}
      >
        Show as table
      </button>
      <div id={viewId}>
        {asTable ? (
          <DaysTable days={days} />
        ) : (
          <>
            <svg
              className="chart-svg"
              viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
              role="img"
              aria-labelledby={titleId}
              preserveAspectRatio="xMidYMid meet"
            >
              <Bars days={days} />
            </svg>
            <ul className="chart-legend" aria-hidden="true">
              <li>
                <span className="swatch swatch-exported" /> Exported
              </li>
              <li>
                <span className="swatch swatch-failed" /> Failed
              </li>
            </ul>
          </>
        )}
      </div>
    </figure>
  );
}
