import type { NodeStatus } from '../model/types.js';

/** How a node of a given status is drawn: fill, border and text colour, plus extra Graphviz styles. */
export interface StatusColour {
  fill: string;
  border: string;
  font: string;
  /** Added to `filled` in the node's Graphviz `style` (e.g. `dashed`, `bold`). */
  style?: string;
}

/**
 * The status palette, shared by the SVG renderer and the web UI (keep them in step by importing
 * this). Fill colours are pairwise distinct so a status can be told from the drawing alone.
 */
export const STATUS_COLOURS: Readonly<Record<NodeStatus, StatusColour>> = {
  pending: { fill: '#f8fafc', border: '#94a3b8', font: '#334155' },
  ready: { fill: '#dbeafe', border: '#2563eb', font: '#1e3a8a' },
  running: { fill: '#fef3c7', border: '#d97706', font: '#78350f', style: 'bold' },
  awaiting_input: { fill: '#ede9fe', border: '#7c3aed', font: '#4c1d95', style: 'bold' },
  done: { fill: '#dcfce7', border: '#16a34a', font: '#14532d' },
  failed: { fill: '#fee2e2', border: '#dc2626', font: '#7f1d1d', style: 'bold' },
  skipped: { fill: '#e7e5e4', border: '#a8a29e', font: '#57534e', style: 'dashed' },
  cancelled: { fill: '#d1d5db', border: '#6b7280', font: '#374151', style: 'dashed' },
};

/** For a status the renderer does not know (an unvalidated file). */
export const UNKNOWN_STATUS_COLOUR: StatusColour = { fill: '#ffffff', border: '#000000', font: '#000000', style: 'dotted' };
