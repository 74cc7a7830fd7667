export { STATUS_COLOURS, UNKNOWN_STATUS_COLOUR, type StatusColour } from './colours.js';
export { renderSvg } from './svg.js';
export { escapeRecord, escapeText, toVizGraph, type RenderOptions } from './viz-graph.js';
