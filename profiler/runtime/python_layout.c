/* CPython 3.11's thread state and frames, read in place (python_layout.h). Only
 * macros and inline functions of the headers are used: libmpidle links no Python
 * library, and a program that is not Python never reaches this code. */
#include "profiler/runtime/python_layout.h"

#if defined(MPIDLE_HAVE_PYTHON_HEADERS)
#define Py_BUILD_CORE 1
#include <Python.h>
#endif

#if defined(MPIDLE_HAVE_PYTHON_HEADERS) && PY_MAJOR_VERSION == 3 && PY_MINOR_VERSION == 11
#include <internal/pycore_frame.h>

const char* mpidle_python_layout_version(void) {
  return "3.11";
}

int mpidle_python_stack(const void* thread_state, struct mpidle_python_frame* out, int max) {
  const PyThreadState* ts = (const PyThreadState*)thread_state;
  if (ts == NULL || ts->cframe == NULL) return 0;
  int n = 0;
  /* A bounded walk: a corrupt chain must not loop. */
  const _PyInterpreterFrame* frame = ts->cframe->current_frame;
  for (int seen = 0; frame != NULL && n < max && seen < 256; frame = frame->previous, ++seen) {
    const PyCodeObject* code = frame->f_code;
    if (code == NULL) break;
    const _Py_CODEUNIT* first = _PyCode_CODE(code);
    /* Not yet started (its first instructions set it up): no line of its own. */
    if (frame->owner != FRAME_OWNED_BY_GENERATOR &&
        frame->prev_instr < first + code->_co_firsttraceable) {
      continue;
    }
    out[n].code = code;
    out[n].offset = (int)((frame->prev_instr - first) * (ptrdiff_t)sizeof(_Py_CODEUNIT));
    ++n;
  }
  return n;
}

/* A str object's text as UTF-8, from its canonical representation. */
static void copy_utf8(PyObject* text, char* out, size_t size) {
  if (size == 0) return;
  out[0] = '\0';
  if (text == NULL || !PyUnicode_Check(text) || !PyUnicode_IS_READY(text)) return;
  const int kind = PyUnicode_KIND(text);
  const void* data = PyUnicode_DATA(text);
  const Py_ssize_t length = PyUnicode_GET_LENGTH(text);
  size_t used = 0;
  for (Py_ssize_t i = 0; i < length; ++i) {
    const Py_UCS4 c = PyUnicode_READ(kind, data, i);
    unsigned char bytes[4];
    size_t count;
    if (c < 0x80) {
      bytes[0] = (unsigned char)c;
      count = 1;
    } else if (c < 0x800) {
      bytes[0] = (unsigned char)(0xC0 | (c >> 6));
      bytes[1] = (unsigned char)(0x80 | (c & 0x3F));
      count = 2;
    } else if (c < 0x10000) {
      bytes[0] = (unsigned char)(0xE0 | (c >> 12));
      bytes[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
      bytes[2] = (unsigned char)(0x80 | (c & 0x3F));
      count = 3;
    } else {
      bytes[0] = (unsigned char)(0xF0 | (c >> 18));
      bytes[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
      bytes[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
      bytes[3] = (unsigned char)(0x80 | (c & 0x3F));
      count = 4;
    }
    if (used + count >= size) break;
    for (size_t k = 0; k < count; ++k) out[used++] = (char)bytes[k];
  }
  out[used] = '\0';
}

void mpidle_python_code_names(const void* code, char* file, size_t file_size, char* function,
                              size_t function_size) {
  const PyCodeObject* co = (const PyCodeObject*)code;
  copy_utf8(co->co_filename, file, file_size);
  /* The qualified name says which class a method belongs to. */
  copy_utf8(co->co_qualname ? co->co_qualname : co->co_name, function, function_size);
}

#else

const char* mpidle_python_layout_version(void) {
  return NULL;
}

int mpidle_python_stack(const void* thread_state, struct mpidle_python_frame* out, int max) {
  (void)thread_state;
  (void)out;
  (void)max;
  return 0;
}

void mpidle_python_code_names(const void* code, char* file, size_t file_size, char* function,
                              size_t function_size) {
  (void)code;
  if (file_size > 0) file[0] = '\0';
  if (function_size > 0) function[0] = '\0';
}

#endif
