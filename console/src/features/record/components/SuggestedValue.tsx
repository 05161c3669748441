import type { CodingSuggestion } from '@svc/client';
import { useId } from 'react';
import { confidenceWords } from '../api/suggestions';

/**
 * The value the account's history suggests for an empty cell, greyed under its picker: one click puts it in the
 * form (unsaved, as a pick would). Its confidence and reason are the button's description, and shown.
 */
export function SuggestedValue({
  suggestion,
  lineNumber,
  onAccept,
}: {
  suggestion: CodingSuggestion;
  lineNumber: number;
  onAccept: () => void;
}) {
  const reasonId = useId();
  const why = `${confidenceWords(suggestion.confidence)} confident: ${suggestion.reason}`;
  return (
    <div className="suggestion">
      <button type="button" className="button-suggestion" aria-describedby={reasonId} title={why} onClick={onAccept}>
        Suggested: {suggestion.value}
        <span className="visually-hidden">
          {' '}
          for {suggestion.field_name} on line {lineNumber}
        </span>{' '}
        <span className="suggestion-confidence">({confidenceWords(suggestion.confidence)})</span>
      </button>
      <p className="suggestion-reason" id={reasonId}>
        {why}
      </p>
    </div>
  );
}
