import { Component, type ReactNode } from 'react';

interface State {
  error: unknown;
}

/**
 * A page that failed to render or to load (a screen's script is fetched when first opened; after an update of the
 * service its old name is gone): said in words, with a way out, instead of an empty window.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    const message = this.state.error instanceof Error ? this.state.error.message : String(this.state.error);
    return (
      <div className="notice notice-error" role="alert">
        <p className="notice-title">This page could not be shown.</p>
        <p>{message}</p>
        <p>The console may have been updated since you opened it: reload the page.</p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
    );
  }
}
