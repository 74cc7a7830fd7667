/** Why a worker aborted an attempt: these end in a release, not a failure. */
export class AttemptAborted extends Error {
  constructor(readonly why: 'shutdown' | 'lease lost') {
    super(why === 'shutdown' ? 'worker shutting down' : 'lease lost to another worker');
  }
}
