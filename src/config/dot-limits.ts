import type { ReadDotOptions } from '../dot/read.js';
import type { Config } from './defaults.js';

/** The DOT reader's limits from the settings `limits.maxDotBytes` and `limits.maxDotElements`. */
export function dotLimits(config: Pick<Config, 'limits'>): Pick<ReadDotOptions, 'maxBytes' | 'maxASTNodes'> {
  return { maxBytes: config.limits.maxDotBytes, maxASTNodes: config.limits.maxDotElements };
}
