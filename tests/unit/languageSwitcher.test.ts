/**
 * A language switcher (links with `hreflang` to the page in other languages) is not the page's content:
 * httpd's manual opens and closes every page with "Langues Disponibles: de | en | fr | ja", and its words
 * matched hundreds of French sections that say nothing about languages. A page's header, a list of
 * translations or a sentence that links one are content.
 */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { isLanguageSwitcher } from '../../content/extract.js';
import { capturePage } from '../eval/lib/capture.js';

const URL_FR = 'http://127.0.0.1/manual/fr/mod/mod_cache.html';
const block = (inner: string) => parseHTML(`<!doctype html><html><body><div id="x">${inner}</div></body></html>`).document.getElementById('x')!;
/** httpd's bar on its French page: the other languages with hreflang, French itself linked to this page. */
const bar = (label: string) =>
  `<p><span>${label}</span><a href="../../de/mod/mod_cache.html" hreflang="de" rel="alternate" title="Deutsch">&nbsp;de&nbsp;</a> |
   <a href="../../en/mod/mod_cache.html" hreflang="en" rel="alternate" title="English">&nbsp;en&nbsp;</a> |
   <a href="../../fr/mod/mod_cache.html" title="Français">&nbsp;fr&nbsp;</a> |
   <a href="../../ja/mod/mod_cache.html" hreflang="ja" rel="alternate" title="Japanese">&nbsp;ja&nbsp;</a></p>`;

describe('isLanguageSwitcher', () => {
  it('is a block of links to other languages, the page itself at most besides, with a short label', () => {
    expect(isLanguageSwitcher(block(bar('Langues Disponibles: ')), URL_FR)).toBe(true);
    expect(isLanguageSwitcher(block('<ul><li><a href="/de/" hreflang="de">Deutsch</a></li><li><a href="/fr/" hreflang="fr">Français</a></li></ul>'))).toBe(true);
    // A page in two languages: the other one, and its own.
    expect(isLanguageSwitcher(block('<p><span>Available Languages: </span><a href="../../en/mod/mod_cache.html" hreflang="en">en</a> | <a href="mod_cache.html">fr</a></p>'), URL_FR)).toBe(true);
  });

  it('is not a sentence, a block with another link, a single alternate, or anything holding a heading', () => {
    expect(
      isLanguageSwitcher(block('<p>This guide has been translated by volunteers; read it in <a href="/de/" hreflang="de">German</a> or <a href="/fr/" hreflang="fr">French</a>.</p>')),
    ).toBe(false);
    expect(isLanguageSwitcher(block('<p>Read the <a href="/de/guide" hreflang="de">German guide</a> or our <a href="/faq">FAQ on quotas</a> first.</p>'), URL_FR)).toBe(false);
    // A translator's address is a link to elsewhere: a list of translations is content.
    expect(isLanguageSwitcher(block('<li><a href="/de/" hreflang="de">Deutsch</a> (<a href="mailto:hw@example.org">Hans Weber</a>)</li>'), URL_FR)).toBe(false);
    expect(isLanguageSwitcher(block('<p>Also in <a href="/de/" hreflang="de">Deutsch</a></p>'))).toBe(false);
    // Without the page's address, a link without hreflang cannot be told to be the page's own.
    expect(isLanguageSwitcher(block('<p><a href="/de/" hreflang="de">de</a> | <a href="mod_cache.html">fr</a></p>'))).toBe(false);
    // A post's header: its title and date beside the translations.
    expect(isLanguageSwitcher(block('<h1>Tuning autovacuum</h1><p>March 3</p><ul><li><a href="/de/" hreflang="de">Deutsch</a></li><li><a href="/fr/" hreflang="fr">Français</a></li></ul>'))).toBe(false);
    // A paragraph of Japanese is more than a label, however few its characters.
    expect(isLanguageSwitcher(block('<p>この文書では設定ファイルについて記述しています。<a href="/en/" hreflang="en">en</a> <a href="/fr/" hreflang="fr">fr</a></p>'))).toBe(false);
  });
});

describe('pages with a language bar', () => {
  it('are captured without it, their title, introduction, sections and anchors kept', async () => {
    const html = `<!doctype html><html lang="fr"><head><title>mod_cache - Serveur HTTP Apache</title></head><body>
      <div id="page-content"><div id="preamble"><h1>Module Apache mod_cache</h1>
      <div class="toplang">${bar('Langues Disponibles: ')}</div>
      <p>Ce module met en œuvre un filtre de mise en cache HTTP conforme à la RFC 2616, avec support de la mise en cache des réponses négociées selon le contenu et de leur revalidation.</p></div>
      <div class="section"><h2><a name="related" id="related">Mise en cache du contenu</a></h2>
      <p>Le cache conserve les réponses du serveur pour les servir à nouveau sans les recalculer, tant que leur fraîcheur le permet selon les en-têtes envoyés.</p></div>
      <div class="bottomlang">${bar('Langues Disponibles: ')}</div></div></body></html>`;
    const { stored } = await capturePage(html, URL_FR, 'fr');
    const chunks = stored!.chunks;
    expect(chunks.filter((c) => /Langues|Disponibles/.test(c.text))).toEqual([]);
    const text = chunks.map((c) => c.text).join(' ');
    expect(text).toContain('Module Apache mod_cache');
    expect(text).toContain('revalidation');
    expect(chunks.find((c) => c.text.includes('fraîcheur'))?.anchor?.id).toBe('related');
  });

  it('keep a header that holds the title and the date beside the translations', async () => {
    const html = `<!doctype html><html lang="en"><head><title>Tuning autovacuum</title></head><body>
      <article><header><h1>Tuning PostgreSQL autovacuum</h1><p>March 3, 2024</p>
      <ul><li><a href="/de/autovacuum/" hreflang="de">Deutsch</a></li><li><a href="/fr/autovacuum/" hreflang="fr">Français</a></li></ul></header>
      <p>Autovacuum keeps tables from bloating, but its defaults suit small databases: on a busy server the workers fall behind and dead rows pile up between runs.</p>
      <h2 id="scale">Scale factor</h2><p>Lower the scale factor on large tables so that vacuum runs after a fixed number of changed rows rather than a share of the table.</p></article></body></html>`;
    const { stored } = await capturePage(html, 'http://127.0.0.1/en/autovacuum/', 'en');
    const text = stored!.chunks.map((c) => c.text).join(' ');
    expect(text).toContain('Tuning PostgreSQL autovacuum');
    expect(text).not.toContain('Deutsch');
    expect(stored!.chunks.find((c) => c.text.includes('fixed number'))?.anchor?.id).toBe('scale');
  });
});
