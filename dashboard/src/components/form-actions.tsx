import type { ReactNode } from 'react';

/** A form's submit button (its label says when it is busy), an optional Cancel, and any extra actions. */
export function FormActions(props: { busy: boolean; submitLabel: string; busyLabel: string; onCancel?: () => void; children?: ReactNode }) {
  return (
    <div className="toolbar">
      <button type="submit" disabled={props.busy}>
        {props.busy ? props.busyLabel : props.submitLabel}
      </button>
      {props.onCancel && (
        <button type="button" className="button-secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
      )}
      {props.children}
    </div>
  );
}
