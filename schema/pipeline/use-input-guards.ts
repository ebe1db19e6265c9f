import { GraphQLError } from 'graphql';
import type { Plugin } from '@envelop/core';
import type { AppError } from '../../src/errors.ts';
import { checkOperationInputs } from '../input-guards.ts';

/**
 * Refuses, before anything runs, input PostgreSQL cannot store or that nests too deep
 * (input-guards.ts): a request error (400 on HTTP) naming the field, on every front.
 */
export function useInputGuards(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = checkOperationInputs(args.document, args.variableValues);
      if (refused) setResultAndStopExecution({ errors: [requestError(refused)] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = checkOperationInputs(args.document, args.variableValues);
      if (refused) setResultAndStopExecution({ errors: [requestError(refused)] });
    },
  };
}

/** A GraphQL request error (400 on /graphql) for input refused before execution. */
function requestError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 400 } } });
}
