import type { CollectedWorkspace, SourceReference } from '../../src/generation/types.ts';

/** Shared by the compose and editor tests: a fixed clock, an empty window and a few records. */
export const NOW = new Date('2026-11-18T10:05:00Z');
export const COLLECTED: CollectedWorkspace = { since: new Date('2026-11-11T10:05:00Z'), until: NOW };

export const S1: SourceReference = { kind: 'sticky', id: 's1', title: 'Budget review notes' };
export const L1: SourceReference = { kind: 'link', id: 'l1', title: 'Budget template' };
export const T1: SourceReference = { kind: 'transcript', id: 't1', title: 'Weekly sync' };
export const K1: SourceReference = { kind: 'task', id: 'k1', title: 'Send budget' };
export const K2: SourceReference = { kind: 'task', id: 'k2', title: 'Ship release' };
