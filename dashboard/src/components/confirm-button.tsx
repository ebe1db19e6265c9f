import { useId, useRef, type ReactNode } from 'react';

/**
 * A button that asks before doing something that cannot be undone, in a modal <dialog>
 * (focus is trapped and Escape cancels, as the browser does for modal dialogs).
 */
export function ConfirmButton(props: {
  label: ReactNode;
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
  ariaLabel?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        className={props.className ?? 'button-danger'}
        disabled={props.disabled}
        aria-label={props.ariaLabel}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="confirm-dialog">
        <form method="dialog">
          <p id={titleId}>{props.question}</p>
          <div className="dialog-actions">
            <button type="submit" value="cancel" className="button-secondary" autoFocus>
              Cancel
            </button>
            <button
              type="submit"
              value="confirm"
              className="button-danger"
              onClick={() => {
                props.onConfirm();
              }}
            >
              {props.confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
