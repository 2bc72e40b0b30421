// The ESLint rule that keeps one way to plug in a dependency: the ports
// (worker/ports.ts), given to createApp({ ports }) and built by portsFor for
// the Durable Objects and the queue consumers. A module of the worker that
// keeps a dependency for later (an exported `use…()` setter, a module-level
// `let` set at run time, a `WeakMap` keyed by the environment) is a second,
// hidden way: refused. A cache that only remembers what it computed says so
// with an `eslint-disable-next-line` naming why.

const MESSAGE = {
  setter: 'Plug a dependency in through the ports (worker/ports.ts: createApp({ ports }), portsFor), not a use…() registry.',
  let: 'No module-level mutable state in the worker: a dependency is a port (worker/ports.ts); a cache says why in an eslint-disable comment.',
  weakMap: 'No per-environment registry: a dependency is a port (worker/ports.ts), built per request by portsFor.',
};

const isSetterName = (name) => typeof name === 'string' && /^use[A-Z]/.test(name);

/** @type {import('eslint').Rule.RuleModule} */
const noDependencyRegistry = {
  meta: { type: 'problem', schema: [], messages: MESSAGE },
  create(context) {
    const topLevel = (node) => node.parent?.type === 'Program' || node.parent?.parent?.type === 'Program';
    return {
      'ExportNamedDeclaration > FunctionDeclaration'(node) {
        if (isSetterName(node.id?.name)) context.report({ node: node.id, messageId: 'setter' });
      },
      'ExportNamedDeclaration > VariableDeclaration > VariableDeclarator'(node) {
        if (isSetterName(node.id.name)) context.report({ node: node.id, messageId: 'setter' });
      },
      VariableDeclaration(node) {
        if (node.kind === 'let' && topLevel(node)) context.report({ node, messageId: 'let' });
      },
      NewExpression(node) {
        if (node.callee.type !== 'Identifier' || node.callee.name !== 'WeakMap') return;
        const key = (node.typeArguments ?? node.typeParameters)?.params[0];
        if (key?.type === 'TSTypeReference' && key.typeName.type === 'Identifier' && key.typeName.name === 'Env')
          context.report({ node, messageId: 'weakMap' });
      },
    };
  },
};

export const dependencyRegistriesPlugin = { rules: { 'no-dependency-registry': noDependencyRegistry } };

/** The flat-config block for eslint.config.mjs. */
export function dependencyRegistriesConfig() {
  return {
    files: ['worker/**/*.ts'],
    plugins: { registries: dependencyRegistriesPlugin },
    rules: { 'registries/no-dependency-registry': 'error' },
  };
}
