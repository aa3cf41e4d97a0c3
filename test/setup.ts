import fc from 'fast-check';

// Property tests draw fresh inputs on every local run (that is how they find bugs);
// in CI they use a fixed seed, so a landing is never decided by a lucky draw.
// Reproduce a local failure with FC_SEED=<the seed fast-check printed>.
const seed = process.env.FC_SEED ?? (process.env.CI ? '20261130' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
