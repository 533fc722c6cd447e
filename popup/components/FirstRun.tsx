/**
 * What a fresh profile shows instead of results: nothing is saved yet, how capture works, and what
 * stays private. The first-run "import your history" card (issue 14) is its own component and goes in
 * the slot marked below.
 */
export function FirstRun({ paused = false }: { paused?: boolean }) {
  return (
    <section class="firstrun" data-testid="first-run" aria-labelledby="firstrun-title">
      <h2 id="firstrun-title">Nothing saved yet</h2>
      <p>
        Reread keeps the text of the pages you read, cut into sections, so you can find them again by the words they contain or by what
        they mean. Everything stays on this computer: nothing you read or search for is sent anywhere.
      </p>
      <ul>
        <li>
          {paused
            ? 'Saving is paused: pages you open now are not saved until you resume it.'
            : 'Browse as usual: a page is saved about a second after it loads, and can be searched right away.'}
        </li>
        <li>
          Private windows and what you type into forms are never saved. A few well-known webmail, banking and password-manager sites are
          left out from the start; add your bank and any other site you want kept out.
        </li>
        <li>
          Pause saving, or list sites never to save, in{' '}
          <a href="options.html" target="_blank">
            Reread’s options
          </a>
          .
        </li>
      </ul>
      {/* Issue 14: the history-import card goes here. */}
    </section>
  );
}
