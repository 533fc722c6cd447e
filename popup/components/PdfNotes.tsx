/** Options: PDFs Reread could not read (or read only in part), and why. */
import { PDF_PROBLEM_LABELS } from '../../src/dayone.js';
import { call } from '../api.js';
import { useDayOne } from './DayOneCard.js';
import { LocalPdfs } from './LocalPdfs.js';
import './dayone.css';

export function PdfNotes() {
  const [status, setStatus] = useDayOne();
  const notes = status?.pdfNotes ?? [];
  return (
    <section aria-labelledby="pdf-notes-title" data-testid="pdf-notes">
      <h2 id="pdf-notes-title">PDFs</h2>
      <p>PDFs you open in a tab are read by their text (sections from their outline, or page by page) and open at the right page from a result.</p>
      {notes.length === 0 ? (
        <p data-testid="pdf-notes-empty">No PDF has failed to read so far.</p>
      ) : (
        <>
          <ul class="pdf-notes">
            {notes.map((note) => (
              <li key={note.url} data-testid="pdf-note" data-problem={note.problem}>
                <a href={note.url} target="_blank" rel="noreferrer">
                  {note.title || note.url}
                </a>
                : {PDF_PROBLEM_LABELS[note.problem]}
                {note.detail ? ` (${note.detail})` : ''}.
              </li>
            ))}
          </ul>
          <button type="button" data-testid="pdf-notes-clear" onClick={() => void call('pdf/notes-clear', {}).then(setStatus)}>
            Clear these notes
          </button>
        </>
      )}
      <LocalPdfs />
    </section>
  );
}
