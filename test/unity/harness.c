// The C# side of the Unity package, in C: the same externs as Runtime/QuestPoints.cs's [DllImport("__Internal")]
// (a test checks names and parameter counts against both), called the way IL2CPP calls them. Strings the .jslib
// returns are copied and freed here, as IL2CPP's marshaller does; strings passed into the event callback are copied
// during the call, as IL2CPP does for a string parameter. Linked by emcc with the .jslib (--js-library) and the
// .jspre (--pre-js), run in Chromium by unity-webgl.test.ts. The page sees results through Module.harness*.
#include <emscripten.h>
#include <malloc.h>
#include <stdlib.h>

typedef void (*QuestPointsEventCallback)(int handle, const char *type, const char *json);

extern int QuestPoints_Create(const char *configJson, QuestPointsEventCallback callback);
extern char *QuestPoints_Award(int handle, double points, const char *eventName, const char *description);
extern char *QuestPoints_View(int handle);
extern void QuestPoints_Flush(int handle);
extern void QuestPoints_ProvideToken(int handle, const char *token);
extern void QuestPoints_FailToken(int handle, const char *message);
extern void QuestPoints_Dispose(int handle);
extern char *QuestPoints_LastError(void);

// What C# does with a returned string: copy it (here: into the page's Module.harnessResult), then free it.
static void take(char *returned) {
  EM_ASM({ Module.harnessResult = $0 ? UTF8ToString($0) : null; }, returned);
  free(returned);
}

static void on_event(int handle, const char *type, const char *json) {
  EM_ASM({ Module.harnessEvent($0, UTF8ToString($1), UTF8ToString($2)); }, handle, type, json);
}

EMSCRIPTEN_KEEPALIVE int hx_create(const char *config) { return QuestPoints_Create(config, on_event); }
EMSCRIPTEN_KEEPALIVE void hx_award(int handle, double points, const char *name, const char *description) {
  take(QuestPoints_Award(handle, points, name, description));
}
EMSCRIPTEN_KEEPALIVE void hx_view(int handle) { take(QuestPoints_View(handle)); }
EMSCRIPTEN_KEEPALIVE void hx_last_error(void) { take(QuestPoints_LastError()); }
EMSCRIPTEN_KEEPALIVE void hx_flush(int handle) { QuestPoints_Flush(handle); }
EMSCRIPTEN_KEEPALIVE void hx_provide_token(int handle, const char *token) { QuestPoints_ProvideToken(handle, token); }
EMSCRIPTEN_KEEPALIVE void hx_fail_token(int handle, const char *message) { QuestPoints_FailToken(handle, message); }
EMSCRIPTEN_KEEPALIVE void hx_dispose(int handle) { QuestPoints_Dispose(handle); }
// Bytes malloc holds now: back to the same figure once the strings of any number of events are freed.
EMSCRIPTEN_KEEPALIVE int hx_heap_in_use(void) { return mallinfo().uordblks; }

int main(void) { return 0; }
