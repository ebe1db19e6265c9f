/**
 * One difference between the committed contract (contract/baseline/) and the code's, on one front.
 * `breaking`: a client written against the baseline can fail (contract:check exits 1);
 * `info`: an addition or a change no existing client can notice (listed, passes).
 */
export type Front = 'graphql' | 'rest' | 'mcp';
export type Level = 'breaking' | 'info';

export interface ContractChange {
  front: Front;
  level: Level;
  message: string;
}

export function change(front: Front, level: Level, message: string): ContractChange {
  return { front, level, message };
}

export function breaking(front: Front, message: string): ContractChange {
  return { front, level: 'breaking', message };
}

export function info(front: Front, message: string): ContractChange {
  return { front, level: 'info', message };
}
