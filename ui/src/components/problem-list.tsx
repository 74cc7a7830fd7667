/** Diagnostics or conflicts as a list beside the editor; an entry with a line jumps there. */
export interface ProblemItem {
  code: string;
  message: string;
  severity?: string;
  where?: string | undefined;
  line?: number | undefined;
  fix?: string | undefined;
}

export function ProblemList({
  title,
  id,
  items,
  onJump,
  empty,
}: {
  title: string;
  id: string;
  items: ProblemItem[];
  onJump: (line: number | undefined) => void;
  empty?: string;
}) {
  return (
    <section class={`problems ${id}`} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      {items.length === 0 ? (
        <p class="muted">{empty ?? 'None.'}</p>
      ) : (
        <ul>
          {items.map((item, i) => (
            <li key={i} class={item.severity ?? 'error'}>
              <code>{item.code}</code>
              {item.where ? <span class="muted"> {item.where}</span> : null}
              {item.line !== undefined ? (
                <button type="button" class="link" onClick={() => onJump(item.line)}>
                  line {item.line}
                </button>
              ) : null}
              <div>{item.message}</div>
              {item.fix ? <div class="muted">fix: {item.fix}</div> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
