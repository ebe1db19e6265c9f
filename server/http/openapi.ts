import express, { type Router } from 'express';
import { openApiJson, openApiYaml } from '../../rest-compat/openapi/index.ts';

/**
 * The REST layer's OpenAPI 3.1 document, public like the GraphQL schema's introspection:
 * GET /openapi.json and /openapi.yaml (the same document; openapi.json in the repository is it).
 */
export function openApiRoutes(): Router {
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').setHeader('Cache-Control', 'no-cache').send(openApiJson());
  });
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').setHeader('Cache-Control', 'no-cache').send(openApiYaml());
  });
  return router;
}
