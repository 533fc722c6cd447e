/**
 * A modal confirmation (the native <dialog>: focus is held inside it, Escape cancels, the page behind
 * is inert). Focus starts on Cancel, so Enter pressed by habit forgets nothing, and goes back to where
 * it was when the dialog closes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmProps {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** Disables the confirm button (e.g. while the count is still being computed). */
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}

export function ConfirmDialog({ title, children, confirmLabel, busy, onConfirm, onCancel, testId = 'confirm' }: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const d = ref.current;
    if (d && !d.open) d.showModal();
    cancel.current?.focus();
    return () => {
      if (d?.open) d.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="dialog-title"
      aria-describedby="dialog-body"
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      <div id="dialog-body" class="dialog__body">
        {children}
      </div>
      <div class="dialog__buttons">
        <button type="button" ref={cancel} data-testid={`${testId}-cancel`} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger-fill" data-testid={`${testId}-ok`} disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
