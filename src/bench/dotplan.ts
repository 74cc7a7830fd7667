import type { DotplanBench } from './run.js';

export const benchDotplan: DotplanBench = async () => {
  throw new Error('not written yet');
};
