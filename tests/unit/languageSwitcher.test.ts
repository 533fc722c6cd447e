/**
 * A language switcher (links with `hreflang` to the page in other languages) is not the page's content:
 * httpd's manual opens and closes every page with "Langues Disponibles: de | en | fr | ja", and its words
 * matched hundreds of French sections that say nothing about languages.
 */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { isLanguageSwitcher } from '../../content/extract.js';
import { capturePage } from '../eval/lib/capture.js';

const block = (inner: string) => parseHTML(`<!doctype html><html><body><div id="x">${inner}</div></body></html>`).document.getElementById('x')!;
const bar = (label: string) =>
  `<p><span>${label}</span><a href="../de/a.html" hreflang="de" rel="alternate" title="Deutsch">&nbsp;de&nbsp;</a> |
   <a href="../en/a.html" hreflang="en" rel="alternate" title="English">&nbsp;en&nbsp;</a> |
   <a href="../fr/a.html" title="Français">&nbsp;fr&nbsp;</a> |
   <a href="../ja/a.html" hreflang="ja" rel="alternate" title="Japanese">&nbsp;ja&nbsp;</a></p>`;

describe('isLanguageSwitcher', () => {
  it('is a block of links to other languages with a label and separators at most', () => {
    expect(isLanguageSwitcher(block(bar('Langues Disponibles: ')))).toBe(true);
    expect(isLanguageSwitcher(block('<ul><li><a href="/de/" hreflang="de">Deutsch</a></li><li><a href="/fr/" hreflang="fr">Français</a></li></ul>'))).toBe(true);
    // A page in two languages: the other one, and its own (linked without hreflang).
    expect(isLanguageSwitcher(block('<p><span>Langues Disponibles: </span><a href="../en/a.html" hreflang="en">en</a> | <a href="../fr/a.html">fr</a></p>'))).toBe(true);
  });

  it('is not a sentence, a block with two other links, or a single alternate', () => {
    expect(
      isLanguageSwitcher(block('<p>This guide has been translated by volunteers; read it in <a href="/de/" hreflang="de">German</a> or <a href="/fr/" hreflang="fr">French</a> if you prefer, and report mistakes to the list.</p>')),
    ).toBe(false);
    expect(isLanguageSwitcher(block('<p><a href="/de/" hreflang="de">de</a> | <a href="/fr/" hreflang="fr">fr</a> | <a href="/help">help</a> | <a href="/about">about</a></p>'))).toBe(false);
    expect(isLanguageSwitcher(block('<p>Also in <a href="/de/" hreflang="de">Deutsch</a></p>'))).toBe(false);
  });
});

describe('a page with a language bar above and below', () => {
  it('is captured without it, its sections and anchors unchanged', async () => {
    const html = `<!doctype html><html lang="fr"><head><title>mod_cache - Serveur HTTP Apache</title></head><body>
      <div id="page-content"><div id="preamble"><h1>Module Apache mod_cache</h1>
      <div class="toplang">${bar('Langues Disponibles: ')}</div>
      <p>Ce module met en œuvre un filtre de mise en cache HTTP conforme à la RFC 2616, avec support de la mise en cache des réponses négociées selon le contenu et de leur revalidation.</p></div>
      <div class="section"><h2><a name="related" id="related">Mise en cache du contenu</a></h2>
      <p>Le cache conserve les réponses du serveur pour les servir à nouveau sans les recalculer, tant que leur fraîcheur le permet selon les en-têtes envoyés.</p></div>
      <div class="bottomlang">${bar('Langues Disponibles: ')}</div></div></body></html>`;
    const { stored } = await capturePage(html, 'http://127.0.0.1/manual/fr/mod/mod_cache.html', 'fr');
    const chunks = stored!.chunks;
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.filter((c) => /Langues|Disponibles/.test(c.text))).toEqual([]);
    expect(chunks.map((c) => c.text).join(' ')).toContain('revalidation');
    expect(chunks.find((c) => c.text.includes('fraîcheur'))?.anchor?.id).toBe('related');
  });
});
