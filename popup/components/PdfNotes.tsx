/** Options: PDFs Reread could not read (or read only in part), and why. */
import { useRef, useState } from 'preact/hooks';
import { PDF_PROBLEM_LABELS } from '../../src/dayone.js';
import { call } from '../api.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { useDayOne } from './DayOneCard.js';
import { LocalPdfs } from './LocalPdfs.js';
import './dayone.css';

export function PdfNotes() {
  const [status, setStatus] = useDayOne();
  const notes = status?.pdfNotes ?? [];
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Where focus goes once the list and its button are gone.
  const heading = useRef<HTMLHeadingElement>(null);
  const clear = () => {
    setAsking(false);
    call('pdf/notes-clear', {}).then(
      (s) => {
        setError(null);
        setStatus(s);
        heading.current?.focus();
      },
      (e: Error) => setError(`The notes could not be cleared: ${e.message}`),
    );
  };
  return (
    <section aria-labelledby="pdf-notes-title" data-testid="pdf-notes">
      <h2 id="pdf-notes-title" tabIndex={-1} ref={heading}>
        PDFs
      </h2>
      <p>PDFs you open in a tab are read by their text (sections from their outline, or page by page) and open at the right page from a result.</p>
      {notes.length === 0 ? (
        <p data-testid="pdf-notes-empty">No PDF has failed to read so far.</p>
      ) : (
        <>
          <ul class="pdf-notes">
            {notes.map((note) => (
              <li key={note.url} data-testid="pdf-note" data-problem={note.problem}>
                {/* A title in another direction (or with a direction override) stays in its own box. */}
                <a href={note.url} target="_blank" rel="noreferrer" dir="auto">
                  <bdi>{note.title || note.url}</bdi>
                </a>
                : {PDF_PROBLEM_LABELS[note.problem]}
                {note.detail ? ` (${note.detail})` : ''}.
              </li>
            ))}
          </ul>
          <button type="button" data-testid="pdf-notes-clear" onClick={() => setAsking(true)}>
            Clear these notes
          </button>
        </>
      )}
      {error && (
        <p role="alert" class="warn">
          {error}
        </p>
      )}
      {asking && (
        <ConfirmDialog title="Clear these notes?" confirmLabel="Clear" testId="confirm-pdf-notes" onCancel={() => setAsking(false)} onConfirm={clear}>
          <p>The list of PDFs Reread could not read is emptied. The PDFs themselves, and every page Reread saved, stay as they are.</p>
        </ConfirmDialog>
      )}
      <LocalPdfs />
    </section>
  );
}
