// The part of fengari's API (a Lua 5.3 VM in JavaScript) e2e/harness/argocd-health.ts uses; the package ships no types.
declare module 'fengari' {
  type LuaState = { readonly __luaState: unique symbol };
  const fengari: {
    to_luastring: (text: string) => Uint8Array;
    lua: {
      LUA_OK: number;
      lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
      lua_tojsstring(L: LuaState, index: number): string | null;
    };
    lauxlib: {
      luaL_newstate(): LuaState;
      luaL_loadstring(L: LuaState, source: Uint8Array): number;
    };
    lualib: { luaL_openlibs(L: LuaState): void };
  };
  export default fengari;
}
