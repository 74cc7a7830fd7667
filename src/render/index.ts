export { STATUS_COLOURS, UNKNOWN_STATUS_COLOUR, type StatusColour } from './colours.js';
export { drawPlan, renderSvg, type Drawing } from './svg.js';
export { drawingNote } from './note.js';
export { MAX_DRAWN_EDGES, MAX_DRAWN_NODES, tooLargeToDraw } from './size.js';
export { escapeRecord, escapeText, toVizGraph, type ChildMark, type RenderOptions } from './viz-graph.js';
