import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { isUserError, NotFoundError } from '../errors/errors.js';
import { formatDiagnostic, ValidationError } from '../model/diagnostics.js';

/**
 * What a refusal becomes on the A2A wire: an A2A error (a JSON-RPC error with its code and dotplan's
 * message naming the fix), never a stack trace. A plan that does not validate lists every diagnostic;
 * a task that does not exist is TaskNotFound; a move the plan's state does not allow (an answer that
 * contradicts one given, a finished task) is UnsupportedOperation; other bad input is invalid params
 * (RequestMalformed). Anything else is a bug: one line to the client, the stack to the server's log.
 */
export function a2aErrorOf(error: unknown, logError: (error: unknown) => void): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof ValidationError) {
    const errors = error.diagnostics.filter((d) => d.severity === 'error');
    const lines = errors.map((d) => `- ${formatDiagnostic(d, error.source)}`);
    return new RequestMalformedError({
      message: [`the plan is not valid (${errors.length} error${errors.length === 1 ? '' : 's'}); nothing was stored:`, ...lines].join('\n'),
      metadata: { code: error.code },
    });
  }
  if (isUserError(error)) {
    const metadata = { code: error.code };
    if (error.code === 'CONFLICT' || error.code === 'ILLEGAL_TRANSITION') return new UnsupportedOperationError({ message: error.message, metadata });
    return new RequestMalformedError({ message: error.message, metadata });
  }
  const message = error instanceof Error ? error.message : String(error);
  logError(error);
  return new A2AError({ message: `internal error: ${message} (a bug in dotplan, not in the request; the details are in the server's log)` });
}

/** A task id that names no plan: TaskNotFound, saying what a task id is. */
export function taskNotFound(taskId: string, error: unknown): A2AError | undefined {
  if (!(error instanceof NotFoundError)) return undefined;
  return new TaskNotFoundError({
    message: `no task ${JSON.stringify(taskId)} on this server: a task id is the plan id SendMessage returned (p_…), and tasks are read from the plans of this server's database`,
  });
}
