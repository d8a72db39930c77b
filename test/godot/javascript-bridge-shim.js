// A stand-in for Godot 4's JavaScriptBridge in a plain page, with the conventions the addon's GDScript meets in a
// web export (Godot's platform/web/javascript_bridge_singleton.cpp and its docs):
// - eval(code, true) runs code in the page's global scope and returns its value converted for GDScript;
// - get_interface(name) returns window[name] as an object whose methods GDScript calls; values come back converted;
// - create_callback(callable) returns a JavaScript function that calls the GDScript callable with ONE Array holding
//   the JavaScript arguments;
// - conversion to GDScript: numbers, strings, booleans pass; null and undefined become null; any object or function
//   becomes an opaque JavaScriptObject (a proxy: GDScript cannot read it as a String or a Dictionary).
// The shim records every callback call and every value handed to GDScript, so a test can check that the bridge
// gives GDScript only what it can use.
{
  /** An opaque proxy of a JavaScript object or function, as GDScript holds one. */
  class JavaScriptObject {
    constructor(target) {
      this.target = target;
    }
  }
  const handed = [];
  const calls = [];
  const toGodot = (value) => {
    let converted = value;
    if (value === undefined || value === null) converted = null;
    else if (typeof value === 'object' || typeof value === 'function') converted = new JavaScriptObject(value);
    handed.push(converted);
    return converted;
  };
  const toJs = (value) => (value instanceof JavaScriptObject ? value.target : value);
  // Called through a reference: an indirect eval, in the global scope, as Godot's eval(code, true).
  // biome-ignore lint/security/noGlobalEval: this file stands for Godot's JavaScriptBridge.eval, which is eval.
  const globalEval = window.eval;
  window.JavaScriptBridge = {
    eval: (code) => toGodot(globalEval(String(code))),
    get_interface(name) {
      const target = window[name];
      if (target === undefined || target === null) return null;
      return new Proxy(
        {},
        {
          get:
            (_, key) =>
            (...args) =>
              toGodot(target[key](...args.map(toJs))),
        },
      );
    },
    create_callback: (callable) =>
      new JavaScriptObject((...args) => {
        const array = args.map(toGodot);
        calls.push(array);
        callable(array);
      }),
  };
  window.GodotShim = {
    JavaScriptObject,
    /** Every value converted for GDScript so far (returns, callback arguments). */
    handed,
    /** Every callback call: the one Array the GDScript callable received. */
    calls,
    /** What the addon's _load_bridge() does: each file read from the pack (here: fetched) and evaluated globally. */
    async loadAddon(files) {
      for (const file of files) window.JavaScriptBridge.eval(await (await fetch(file)).text(), true);
    },
  };
}
