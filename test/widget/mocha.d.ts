// The few mocha globals the widget tests use (@web/test-runner-mocha provides them at runtime).
declare function describe(name: string, fn: () => void): void;
declare function it(name: string, fn: () => unknown): void;
declare function before(fn: () => unknown): void;
declare function beforeEach(fn: () => unknown): void;
declare function afterEach(fn: () => unknown): void;
