/**
 * dotplan as an A2A agent (Agent2Agent protocol 1.0, `@a2a-js/sdk`): `dotplan serve` publishes an agent
 * card with one skill per template and a `goal` skill, and answers JSON-RPC at `/v1/a2a` with the API's
 * tokens and scopes. A message makes a plan (the task id is the plan id); its questions and its review
 * come back as INPUT_REQUIRED and a reply in the task answers them; a completed plan's result is the
 * task's artifact; GetTask reads the plan, so it answers the same after a restart.
 */
export { a2aRoutes, type A2aOptions } from './routes.js';
export { agentCard, A2A_PATH } from './card.js';
export { DotplanA2aHandler, PrincipalUser, type A2aHandlerOptions } from './handler.js';
