import type { Tool } from '../types.js';
import { echoTool } from './echo.js';
import { httpTool, type HttpAccess } from './http.js';
import { jsonTool } from './json.js';
import { sleepTool } from './sleep.js';
import { templateTool } from './template.js';

export interface BuiltinOptions {
  http?: HttpAccess;
}

/** The tools every registry starts with. */
export function builtinTools(options: BuiltinOptions = {}): Tool[] {
  return [
    echoTool,
    sleepTool,
    templateTool,
    jsonTool,
    httpTool({ allowHosts: options.http?.allowHosts ?? [], allowPrivate: options.http?.allowPrivate === true }),
  ] as Tool[];
}
