/*
 * toolresponse.validation.native._projector: toolresponse.validation._engine.Projection.project, in C.
 *
 * A projection keeps of a decoded response exactly what the schema's keywords
 * (and the messages about them) depend on; the validator caches explanations
 * by projection, so every invalid response of a large input is projected.
 * The Python projector costs a call and a dispatch per member, which makes it
 * the most expensive step of explaining a response that repeats a known
 * mistake; this one walks the same plan without the interpreter.
 *
 *   project(plan, value)
 *
 * `plan` is a Projection's `plan`, a ProjectionPlan (projector.py: a named
 * tuple that documents each field; Projection in _engine.py builds it from the
 * schema); member plans are read from its `members` dict and, for a name not
 * seen before, asked of its `member` callable, which builds and remembers them.
 * The fields are read by position; PLAN_FIELDS names them in that order. The result equals what
 * the Python projector gives (the test suite compares the two). The plan
 * comes first so that functools.partial can bind it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

/* The fields of a plan, in the order this file reads them by position: ProjectionPlan (in
 * projector.py) must declare them in this order, and the package checks at import that it
 * does, against PLAN_FIELDS, which this list also makes. */
#define PLAN_FIELD_LIST(X)                       \
    X(PLAN_KEEP, "keep")                         \
    X(PLAN_OBJECTS, "objects")                   \
    X(PLAN_STRINGS_TYPED, "strings_typed")       \
    X(PLAN_STAND_IN, "stand_in")                 \
    X(PLAN_QUOTED, "quoted")                     \
    X(PLAN_INTEGERS_TYPED, "integers_typed")     \
    X(PLAN_NUMBERS_TYPED, "numbers_typed")       \
    X(PLAN_CHECKS, "checks")                     \
    X(PLAN_INTEGER_STAND_IN, "integer_stand_in") \
    X(PLAN_NUMBER_STAND_IN, "number_stand_in")   \
    X(PLAN_MEMBERS, "members")                   \
    X(PLAN_MEMBER, "member")

#define PLAN_ENUM(field, name) field,
enum { PLAN_FIELD_LIST(PLAN_ENUM) PLAN_SIZE };
#undef PLAN_ENUM

#define PLAN_NAME(field, name) name,
static const char *const plan_field_names[PLAN_SIZE] = {PLAN_FIELD_LIST(PLAN_NAME)};
#undef PLAN_NAME

#define FIELD(plan, field) PyTuple_GET_ITEM(plan, field)

static PyObject *project_value(PyObject *value, PyObject *plan);

#define FLAG(plan, field) (FIELD(plan, field) == Py_True)

static int
check_plan(PyObject *plan)
{
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != PLAN_SIZE || !PyBool_Check(FIELD(plan, PLAN_KEEP))
        || !PyBool_Check(FIELD(plan, PLAN_OBJECTS)) || !PyBool_Check(FIELD(plan, PLAN_STRINGS_TYPED))
        || !PyBool_Check(FIELD(plan, PLAN_INTEGERS_TYPED)) || !PyBool_Check(FIELD(plan, PLAN_NUMBERS_TYPED))
        || !PyUnicode_CheckExact(FIELD(plan, PLAN_STAND_IN))
        || !PyTuple_CheckExact(FIELD(plan, PLAN_CHECKS)) || !PyDict_CheckExact(FIELD(plan, PLAN_MEMBERS))) {
        PyErr_SetString(PyExc_TypeError, "not a projection plan");
        return -1;
    }
    return 0;
}

static PyObject *
project_object(PyObject *value, PyObject *plan)
{
    PyObject *out = PyDict_New();
    if (out == NULL || !FLAG(plan, PLAN_OBJECTS)) {
        return out;
    }
    PyObject *members = FIELD(plan, PLAN_MEMBERS);
    Py_ssize_t position = 0;
    PyObject *name;
    PyObject *item;
    while (PyDict_Next(value, &position, &name, &item)) {
        /* held: the plan's `member` callable runs Python code, which may let another thread
         * change the dict */
        Py_INCREF(name);
        Py_INCREF(item);
        PyObject *member = PyDict_GetItemWithError(members, name);
        if (member != NULL) {
            Py_INCREF(member);
        }
        else if (!PyErr_Occurred()) {
            member = PyObject_CallOneArg(FIELD(plan, PLAN_MEMBER), name);
        }
        PyObject *projected = NULL;
        if (member != NULL && check_plan(member) == 0) {
            projected = project_value(item, member);
        }
        Py_XDECREF(member);
        int failed = projected == NULL || PyDict_SetItem(out, name, projected) < 0;
        Py_XDECREF(projected);
        Py_DECREF(name);
        Py_DECREF(item);
        if (failed) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static PyObject *
project_string(PyObject *value, PyObject *plan)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(value);
    if (FLAG(plan, PLAN_STRINGS_TYPED)) {
        /* a stand-in of the same length as far as minLength/maxLength can tell */
        PyObject *stand_in = FIELD(plan, PLAN_STAND_IN);
        if (length >= PyUnicode_GET_LENGTH(stand_in)) {
            return Py_NewRef(stand_in);
        }
        return PyUnicode_Substring(stand_in, 0, length);
    }
    Py_ssize_t quoted = PyLong_AsSsize_t(FIELD(plan, PLAN_QUOTED));
    if (quoted == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (length <= quoted) {
        return Py_NewRef(value);
    }
    return PyUnicode_Substring(value, 0, quoted);
}

static PyObject *
project_number(PyObject *value, PyObject *plan, int integral)
{
    if (!FLAG(plan, integral ? PLAN_INTEGERS_TYPED : PLAN_NUMBERS_TYPED)) {
        return Py_NewRef(value); /* its type fails: a message shows it */
    }
    PyObject *checks = FIELD(plan, PLAN_CHECKS);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(checks); i++) {
        PyObject *check = PyTuple_GET_ITEM(checks, i);
        if (!PyTuple_CheckExact(check) || PyTuple_GET_SIZE(check) != 2) {
            PyErr_SetString(PyExc_TypeError, "a number check is (operation, limit)");
            return NULL;
        }
        long operation = PyLong_AsLong(PyTuple_GET_ITEM(check, 0));
        if (operation == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (operation != Py_LT && operation != Py_LE && operation != Py_GT && operation != Py_GE) {
            PyErr_Format(PyExc_ValueError, "%ld is not a comparison of a number check", operation);
            return NULL;
        }
        int meets = PyObject_RichCompareBool(value, PyTuple_GET_ITEM(check, 1), (int)operation);
        if (meets < 0) {
            return NULL;
        }
        if (!meets) {
            return Py_NewRef(value); /* a keyword fails: a message shows the value */
        }
    }
    PyObject *stand_in = FIELD(plan, integral ? PLAN_INTEGER_STAND_IN : PLAN_NUMBER_STAND_IN);
    return Py_NewRef(stand_in == Py_None ? value : stand_in);
}

static PyObject *
project_value(PyObject *value, PyObject *plan)
{
    if (FLAG(plan, PLAN_KEEP)) {
        return Py_NewRef(value);
    }
    if (PyDict_CheckExact(value)) {
        if (Py_EnterRecursiveCall(" while projecting a response")) {
            return NULL;
        }
        PyObject *out = project_object(value, plan);
        Py_LeaveRecursiveCall();
        return out;
    }
    if (PyUnicode_CheckExact(value)) {
        return project_string(value, plan);
    }
    if (PyLong_CheckExact(value)) {
        return project_number(value, plan, 1);
    }
    if (PyFloat_CheckExact(value)) {
        double number = PyFloat_AS_DOUBLE(value);
        return project_number(value, plan, isfinite(number) && floor(number) == number);
    }
    if (PyList_CheckExact(value)) {
        return PyList_GET_SIZE(value) ? Py_BuildValue("[O]", Py_None) : PyList_New(0);
    }
    return Py_NewRef(value); /* true, false, null */
}

static PyObject *
project(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "project(plan, value) takes 2 arguments");
        return NULL;
    }
    if (check_plan(args[0]) < 0) {
        return NULL;
    }
    return project_value(args[1], args[0]);
}

static PyMethodDef projector_methods[] = {
    {"project", (PyCFunction)(void (*)(void))project, METH_FASTCALL,
     "project(plan, value, /)\n--\n\n"
     "What the schema can see of the decoded JSON value `value`, under the Projection plan `plan`."},
    {NULL, NULL, 0, NULL},
};

/* PLAN_FIELDS: the names of the plan's fields, in the order they are read. */
static int
projector_exec(PyObject *module)
{
    PyObject *fields = PyTuple_New(PLAN_SIZE);
    if (fields == NULL) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < PLAN_SIZE; i++) {
        PyObject *name = PyUnicode_FromString(plan_field_names[i]);
        if (name == NULL) {
            Py_DECREF(fields);
            return -1;
        }
        PyTuple_SET_ITEM(fields, i, name);
    }
    int added = PyModule_AddObjectRef(module, "PLAN_FIELDS", fields);
    Py_DECREF(fields);
    return added;
}

static struct PyModuleDef_Slot projector_slots[] = {
    {Py_mod_exec, projector_exec},
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef projector_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "toolresponse.validation.native._projector",
    .m_doc = "Projection.project of toolresponse.validation._engine, in C.",
    .m_size = 0,
    .m_methods = projector_methods,
    .m_slots = projector_slots,
};

PyMODINIT_FUNC
PyInit__projector(void)
{
    return PyModuleDef_Init(&projector_module);
}
