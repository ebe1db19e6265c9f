import { Component, type ReactNode } from 'react';

/** A page that throws shows what happened instead of a blank screen; the rest of the shell keeps working. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (this.state.error) {
      return (
        <div className="notice notice-error" role="alert">
          <strong>This page failed to load: </strong>
          {this.state.error.message}{' '}
          <button type="button" className="link-button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}
