/** Little pieces used on every page: a status badge, an error note, a titled section. */
import type { ComponentChildren } from 'preact';

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status}`}>{status.replace('_', ' ')}</span>;
}

export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error-note" role="alert">
      {error}
    </p>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A block of text that may be long or JSON: shown as written, scrollable. */
export function TextBlock({ text }: { text: string | undefined }) {
  if (text === undefined || text === '') return <span class="muted">—</span>;
  let shown = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) shown = JSON.stringify(parsed, null, 2);
  } catch {
    // plain text
  }
  return <pre class="text-block">{shown}</pre>;
}
