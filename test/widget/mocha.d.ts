// The few mocha globals the widget tests use (@web/test-runner-mocha provides them at runtime).
declare function describe(name: string, fn: () => void): void;
/** `this.skip()`: a check an engine's driver cannot make (it says so in the report). */
interface TestContext {
  skip(): never;
  timeout(ms: number): void;
}
declare function it(name: string, fn: (this: TestContext) => unknown): void;
declare function before(fn: () => unknown): void;
declare function beforeEach(fn: () => unknown): void;
declare function afterEach(fn: () => unknown): void;
