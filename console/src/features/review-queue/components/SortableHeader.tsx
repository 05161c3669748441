import type { QueueSort, SortColumn } from '../queue-params';
import { sortDirection } from '../queue-params';

/** A column header that sorts the queue by its column: ascending first, then descending. */
export function SortableHeader({
  column,
  label,
  sort,
  onSort,
  numeric = false,
}: {
  column: SortColumn;
  label: string;
  sort: QueueSort;
  onSort: (column: SortColumn) => void;
  numeric?: boolean;
}) {
  const direction = sortDirection(sort, column);
  return (
    <th scope="col" aria-sort={direction ?? undefined} className={numeric ? 'numeric' : undefined}>
      <button type="button" className="sort-button" onClick={() => onSort(column)}>
        {label}
        <span className="sort-mark" aria-hidden="true">
          {direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}
