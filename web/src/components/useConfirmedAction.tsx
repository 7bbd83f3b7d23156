import { useState } from 'react';
import { showSnackbar } from '../lib/feedback';
import ConfirmDialog from './ConfirmDialog';

export interface PendingAction {
  title: string;
  text: string;
  /** The confirming button; the title when absent. */
  confirmLabel?: string;
  destructive?: boolean;
  run: () => Promise<unknown>;
  /** The snackbar once it is done. */
  done: string;
}

/**
 * An action that asks first: `ask(action)` opens the confirmation, the dialog shows busy while it runs, the snackbar
 * says it is done, and a failure leaves the dialog open (the error dialog already says why).
 */
export function useConfirmedAction() {
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [busy, setBusy] = useState(false);
  const dialog = (
    <ConfirmDialog
      open={!!pending}
      title={pending?.title ?? ''}
      text={pending?.text ?? ''}
      confirmLabel={pending?.confirmLabel ?? pending?.title ?? ''}
      destructive={pending?.destructive}
      busy={busy}
      onClose={() => setPending(null)}
      onConfirm={async () => {
        if (!pending) return;
        setBusy(true);
        try {
          await pending.run();
          showSnackbar(pending.done);
          setPending(null);
        } catch {
          /* the error dialog already shows why */
        } finally {
          setBusy(false);
        }
      }}
    />
  );
  return { dialog, ask: setPending };
}
