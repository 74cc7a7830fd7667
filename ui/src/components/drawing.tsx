/**
 * The plan as the server draws it, inserted into the page and kept live: statuses from the page's
 * live state are applied in place (see recolour.ts); `version` changing (a new revision) fetches the
 * drawing again. Nodes are focusable buttons: click, Enter or Space selects one.
 */
import type { Signal } from '@preact/signals';
import { useSignalEffect } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import type { NodeStatus } from '../types.js';
import { ErrorNote } from './bits.js';
import { dropLegend } from './fit-drawing.js';
import { drawnStatus, nodeElements, setNodeStatus } from './recolour.js';

interface Props {
  planId: string;
  statuses: Signal<ReadonlyMap<string, NodeStatus>>;
  selected: string | undefined;
  onSelect: (nodeId: string) => void;
  /** Bumped to draw again (a new revision). */
  version: number;
}

export function Drawing({ planId, statuses, selected, onSelect, version }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const nodes = useRef<Map<string, SVGGElement>>(new Map());
  /** Counts the drawings put in place (effects that mark the drawing run again). */
  const [drawn, setDrawn] = useState(0);
  const [error, setError] = useState<string>();

  useEffect(() => {
    let stale = false;
    api
      .text(`/v1/plans/${seg(planId)}/graph.svg`)
      .then((text) => {
        if (stale || !box.current) return;
        const parsed = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
        if (parsed.nodeName !== 'svg') throw new Error('The drawing could not be read.');
        const svg = document.importNode(parsed, true);
        svg.setAttribute('role', 'img');
        svg.setAttribute('aria-label', 'the plan drawn, nodes coloured by status');
        box.current.replaceChildren(svg);
        if (svg instanceof SVGSVGElement) dropLegend(svg);
        const found = nodeElements(svg);
        for (const [id, g] of found) {
          g.setAttribute('tabindex', '0');
          g.setAttribute('role', 'button');
          g.setAttribute('aria-label', `node ${id}: ${(drawnStatus(g) ?? 'unknown').replace('_', ' ')}`);
        }
        nodes.current = found;
        applyStatuses(found, statuses.peek());
        setDrawn((n) => n + 1);
        setError(undefined);
      })
      .catch((e: unknown) => !stale && setError(errorText(e)));
    return () => {
      stale = true;
    };
  }, [planId, version]);

  // Every status move the page learns of, applied to the drawing in place.
  useSignalEffect(() => applyStatuses(nodes.current, statuses.value));

  useEffect(() => {
    for (const [id, g] of nodes.current) g.classList.toggle('selected', id === selected);
  }, [drawn, selected]);

  const pick = (target: EventTarget | null) => {
    const g = target instanceof Element ? target.closest('g.node') : null;
    if (!g) return;
    for (const [id, el] of nodes.current) if (el === g) onSelect(id);
  };

  return (
    <div class="drawing-wrap">
      <ErrorNote error={error} />
      <div
        class="drawing"
        ref={box}
        onClick={(e) => pick(e.target)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            pick(e.target);
          }
        }}
      />
    </div>
  );
}

function applyStatuses(nodes: ReadonlyMap<string, SVGGElement>, statuses: ReadonlyMap<string, NodeStatus>): void {
  for (const [id, status] of statuses) {
    const g = nodes.get(id);
    if (g) setNodeStatus(g, id, status);
  }
}
