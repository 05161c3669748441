/** How far an import is: a progress bar (its width drawn in SVG: the page's CSP allows no inline style). */
export function ImportProgressBar({ done, total }: { done: number; total: number }) {
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  const words = `${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows sent (${percent}%)`;
  return (
    <div className="import-progress">
      <div
        className="progress-bar"
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={words}
      >
        <svg viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <rect className="progress-track" x="0" y="0" width="100" height="1" />
          <rect className="progress-fill" x="0" y="0" width={percent} height="1" />
        </svg>
      </div>
      <p className="progress-words" aria-hidden="true">
        {words}
      </p>
    </div>
  );
}
