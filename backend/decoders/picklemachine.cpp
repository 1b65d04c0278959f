// SPDX-License-Identifier: MIT
#include "picklemachine.h"

#include "decodebudget.h"

#include <QDateTime>

#include <cstring>

namespace gatehouse::Internal {

using Kind = PayloadValue::Kind;

namespace {

// Python's repr of a str (protocol 0 STRING): quotes off, escapes read.
QByteArray unrepr(const QByteArray &quoted, bool *ok)
{
    *ok = quoted.size() >= 2 && (quoted.front() == '\'' || quoted.front() == '"')
          && quoted.back() == quoted.front();
    if (!*ok)
        return {};
    QByteArray out;
    const QByteArray s = quoted.mid(1, quoted.size() - 2);
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (s.at(i) != '\\' || i + 1 == s.size()) {
            out += s.at(i);
            continue;
        }
        const char c = s.at(++i);
        switch (c) {
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'x':
            if (i + 2 < s.size()) {
                out += char(s.mid(i + 1, 2).toInt(nullptr, 16));
                i += 2;
            }
            break;
        default:
            out += c;
        }
    }
    return out;
}

// raw-unicode-escape (protocol 0 UNICODE): \uXXXX and \UXXXXXXXX, the rest Latin-1.
QString rawUnicode(const QByteArray &s)
{
    QString out;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const int n = s.at(i) == '\\' && i + 1 < s.size() ? (s.at(i + 1) == 'u'   ? 4
                                                             : s.at(i + 1) == 'U' ? 8
                                                                                  : 0)
                                                          : 0;
        bool ok = false;
        const uint code = n && i + 1 + n < s.size() ? s.mid(i + 2, n).toUInt(&ok, 16) : 0;
        if (ok && code <= 0x10ffff) {
            const char32_t c = code;
            out += QString::fromUcs4(&c, 1);
            i += 1 + n;
        } else {
            out += QLatin1Char(s.at(i));
        }
    }
    return out;
}

// A little-endian two's complement integer (LONG1, LONG4) as decimal, or
// as hex when it is wider than 64 bits.
QString longText(const QByteArray &b)
{
    if (b.isEmpty())
        return QStringLiteral("0");
    if (b.size() <= 8) {
        quint64 v = 0;
        for (qsizetype i = b.size() - 1; i >= 0; --i)
            v = (v << 8) | uchar(b.at(i));
        const int shift = 64 - 8 * int(b.size());
        return QString::number(qint64(v << shift) >> shift);
    }
    QByteArray be = b;
    std::reverse(be.begin(), be.end());
    return (b.back() & 0x80 ? QStringLiteral("-0x(two's complement)") : QStringLiteral("0x"))
           + QString::fromLatin1(be.toHex());
}

// datetime's packed state: year (2 bytes, big-endian), month, day, then
// hour, minute, second, microseconds (3 bytes).
QString packedTime(const QByteArray &b)
{
    if (b.size() != 4 && b.size() != 10)
        return {};
    const auto u = [&b](int i) {
        return int(uchar(b.at(i)));
    };
    const QDate date(u(0) * 256 + u(1), u(2), u(3));
    if (!date.isValid())
        return {};
    if (b.size() == 4)
        return date.toString(Qt::ISODate);
    const QTime time(u(4), u(5), u(6), (u(7) * 65536 + u(8) * 256 + u(9)) / 1000);
    return time.isValid() ? QDateTime(date, time).toString(Qt::ISODateWithMs) : QString();
}

} // namespace

PickleMachine::PickleMachine(const QByteArray &input, DecodeBudget &budget)
    : m_in(input)
    , m_budget(budget)
{}

bool PickleMachine::fail(const QString &what)
{
    if (m_why.isEmpty())
        m_why = QStringLiteral("not a pickle it can show (%1 at byte %2)").arg(what).arg(m_pos);
    return false;
}

bool PickleMachine::take(qint64 n, QByteArray *out)
{
    if (n < 0 || n > m_in.size() - m_pos)
        return fail(QStringLiteral("a length of %1 past the end").arg(n));
    *out = m_in.mid(m_pos, qsizetype(n));
    m_pos += qsizetype(n);
    return true;
}

bool PickleMachine::line(QByteArray *out)
{
    const qsizetype end = m_in.indexOf('\n', m_pos);
    if (end < 0)
        return fail(QStringLiteral("a line without its end"));
    *out = m_in.mid(m_pos, end - m_pos);
    if (out->endsWith('\r'))
        out->chop(1);
    m_pos = end + 1;
    return true;
}

bool PickleMachine::unsignedLE(int n, quint64 *v)
{
    QByteArray b;
    if (!take(n, &b))
        return false;
    *v = 0;
    for (int i = n - 1; i >= 0; --i)
        *v = (*v << 8) | uchar(b.at(i));
    return true;
}

bool PickleMachine::lengthThen(int n, QByteArray *out)
{
    quint64 len = 0;
    if (!unsignedLE(n, &len))
        return false;
    if (n == 4 && len > 0x7fffffff)
        return fail(QStringLiteral("a negative length"));
    return take(len > quint64(m_in.size()) ? -1 : qint64(len), out);
}

int PickleMachine::make(Node node)
{
    m_nodes.push_back(std::move(node));
    return int(m_nodes.size() - 1);
}

bool PickleMachine::push(Node node)
{
    if (!m_budget.spend())
        return fail(m_budget.reason());
    m_stack.push_back(make(std::move(node)));
    return true;
}

bool PickleMachine::pop(int *index)
{
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    if (m_stack.size() <= floor)
        return fail(QStringLiteral("an opcode finds the stack empty"));
    *index = m_stack.back();
    m_stack.pop_back();
    return true;
}

bool PickleMachine::popMark(std::vector<int> *items)
{
    if (m_marks.empty())
        return fail(QStringLiteral("an opcode needs a MARK there is not"));
    const std::size_t mark = m_marks.back();
    m_marks.pop_back();
    items->assign(m_stack.begin() + std::ptrdiff_t(mark), m_stack.end());
    m_stack.resize(mark);
    return true;
}

PickleMachine::Node *PickleMachine::top(Kind kind, const char *op)
{
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    if (m_stack.size() <= floor || m_nodes.at(std::size_t(m_stack.back())).kind != kind) {
        fail(QStringLiteral("%1 without its container").arg(QLatin1String(op)));
        return nullptr;
    }
    return &m_nodes.at(std::size_t(m_stack.back()));
}

PickleMachine::Step PickleMachine::scalar(char op)
{
    Node n;
    n.kind = Kind::Number;
    quint64 v = 0;
    QByteArray b;
    bool ok = true;
    switch (uchar(op)) {
    case 'N':
        n.kind = Kind::Null;
        break;
    case 0x88:
    case 0x89:
        n.kind = Kind::Bool;
        n.boolean = uchar(op) == 0x88;
        break;
    case 'K':
    case 'M':
        ok = unsignedLE(op == 'K' ? 1 : 2, &v);
        n.text = QString::number(v);
        break;
    case 'J':
        ok = unsignedLE(4, &v);
        n.text = QString::number(qint32(quint32(v)));
        break;
    case 'I':
    case 'L':
    case 'F':
        ok = line(&b);
        if (op == 'L' && b.endsWith('L'))
            b.chop(1);
        if (op == 'I' && (b == "00" || b == "01")) {
            n.kind = Kind::Bool;
            n.boolean = b == "01";
        } else {
            bool number = false;
            op == 'F' ? void(b.toDouble(&number)) : void(b.toLongLong(&number));
            ok = ok && (number || (op == 'L' && !b.isEmpty() && b.size() < 4096));
            n.text = QString::fromLatin1(b);
        }
        break;
    case 'G': {
        ok = take(8, &b);
        if (ok) {
            std::reverse(b.begin(), b.end());
            double d = 0;
            std::memcpy(&d, b.constData(), 8);
            n.text = QString::number(d, 'g', 17);
        }
        break;
    }
    case 0x8a:
    case 0x8b:
        ok = lengthThen(op == char(0x8a) ? 1 : 4, &b);
        n.text = longText(b);
        break;
    default:
        return Step::NotMine;
    }
    if (!ok)
        return fail(QStringLiteral("a malformed number")), Step::Failed;
    return push(std::move(n)) ? Step::Done : Step::Failed;
}

PickleMachine::Step PickleMachine::text(char op)
{
    Node n;
    n.kind = Kind::Text;
    QByteArray b;
    bool ok = true;
    switch (uchar(op)) {
    case 'S':
        ok = line(&b);
        b = ok ? unrepr(b, &ok) : b;
        break;
    case 'T':
        ok = lengthThen(4, &b);
        break;
    case 'U':
        ok = lengthThen(1, &b);
        break;
    case 'V':
        ok = line(&b);
        n.text = rawUnicode(b);
        return ok && push(std::move(n)) ? Step::Done : Step::Failed;
    case 'X':
        ok = lengthThen(4, &b);
        break;
    case 0x8c:
        ok = lengthThen(1, &b);
        break;
    case 0x8d:
        ok = lengthThen(8, &b);
        break;
    case 'B':
    case 'C':
    case 0x8e:
    case 0x96:
        n.kind = Kind::Bytes;
        ok = lengthThen(op == 'B' ? 4 : op == 'C' ? 1 : 8, &b);
        n.tag = uchar(op) == 0x96 ? QStringLiteral("bytearray") : QString();
        break;
    default:
        return Step::NotMine;
    }
    if (!ok)
        return fail(QStringLiteral("a malformed string")), Step::Failed;
    if (n.kind == Kind::Bytes)
        n.bytes = b;
    else
        n.text = QString::fromUtf8(b);
    return push(std::move(n)) ? Step::Done : Step::Failed;
}

PickleMachine::Step PickleMachine::container(char op)
{
    Node n;
    n.kind = Kind::List;
    std::vector<int> items;
    switch (uchar(op)) {
    case ']':
        break;
    case '}':
        n.kind = Kind::Map;
        break;
    case ')':
        n.tag = QStringLiteral("tuple");
        break;
    case 0x8f:
        n.tag = QStringLiteral("set");
        break;
    case 'l':
    case 't':
    case 'd':
    case 0x91:
        if (!popMark(&items))
            return Step::Failed;
        n.kind = op == 'd' ? Kind::Map : Kind::List;
        n.tag = op == 't'           ? QStringLiteral("tuple")
                : uchar(op) == 0x91 ? QStringLiteral("frozenset")
                                    : QString();
        if (op == 'd' && items.size() % 2)
            return fail(QStringLiteral("DICT with a key without its value")), Step::Failed;
        n.children = std::move(items);
        break;
    case 0x85:
    case 0x86:
    case 0x87: {
        n.tag = QStringLiteral("tuple");
        n.children.resize(uchar(op) - 0x84);
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
            if (!pop(&*it))
                return Step::Failed;
        }
        break;
    }
    default:
        return Step::NotMine;
    }
    return push(std::move(n)) ? Step::Done : Step::Failed;
}

PickleMachine::Step PickleMachine::fill(char op)
{
    std::vector<int> items;
    switch (uchar(op)) {
    case 'a':
    case 's':
        items.resize(op == 'a' ? 1 : 2);
        for (auto it = items.rbegin(); it != items.rend(); ++it) {
            if (!pop(&*it))
                return Step::Failed;
        }
        break;
    case 'e':
    case 'u':
    case 0x90:
        if (!popMark(&items))
            return Step::Failed;
        if (op == 'u' && items.size() % 2)
            return fail(QStringLiteral("SETITEMS with a key without its value")), Step::Failed;
        break;
    default:
        return Step::NotMine;
    }
    const Kind kind = op == 's' || op == 'u' ? Kind::Map : Kind::List;
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    Node *target = nullptr;
    if (m_stack.size() > floor && m_nodes.at(std::size_t(m_stack.back())).kind == Kind::Object) {
        // An object's dictitems or listitems (a defaultdict, an OrderedDict).
        const std::size_t object = std::size_t(m_stack.back());
        if (m_nodes.at(object).items < 0) {
            Node added;
            added.kind = kind;
            const int at = make(std::move(added));
            m_nodes.at(object).items = at;
        }
        target = &m_nodes.at(std::size_t(m_nodes.at(object).items));
        if (target->kind != kind)
            return fail(QStringLiteral("items of two kinds added to one object")), Step::Failed;
    } else {
        target = top(kind, op == 's' || op == 'u' ? "SETITEM" : "APPEND");
    }
    if (!target)
        return Step::Failed;
    target->children.insert(target->children.end(), items.begin(), items.end());
    return Step::Done;
}

PickleMachine::Step PickleMachine::stackOrMemo(char op)
{
    quint64 slot = 0;
    QByteArray b;
    int index = -1;
    switch (uchar(op)) {
    case '(':
        m_marks.push_back(m_stack.size());
        return Step::Done;
    case '0':
        return pop(&index) ? Step::Done : Step::Failed;
    case '1': {
        std::vector<int> dropped;
        return popMark(&dropped) ? Step::Done : Step::Failed;
    }
    case '2':
        if (!pop(&index))
            return Step::Failed;
        m_stack.insert(m_stack.end(), 2, index);
        return Step::Done;
    case 'p':
    case 'g': {
        bool ok = line(&b);
        slot = ok ? b.toULongLong(&ok) : 0;
        if (!ok)
            return fail(QStringLiteral("a memo slot that is not a number")), Step::Failed;
        break;
    }
    case 'q':
    case 'h':
    case 'r':
    case 'j':
        if (!unsignedLE(op == 'q' || op == 'h' ? 1 : 4, &slot))
            return Step::Failed;
        break;
    case 0x94:
        slot = quint64(m_memo.size());
        break;
    default:
        return Step::NotMine;
    }
    if (op == 'g' || op == 'h' || op == 'j') {
        const auto it = m_memo.constFind(slot);
        if (it == m_memo.cend())
            return fail(QStringLiteral("memo slot %1 read before it was written").arg(slot)),
                   Step::Failed;
        m_stack.push_back(*it);
        return Step::Done;
    }
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    if (m_stack.size() <= floor)
        return fail(QStringLiteral("PUT finds the stack empty")), Step::Failed;
    m_memo.insert(slot, m_stack.back());
    return Step::Done;
}

bool PickleMachine::run(PayloadValue *out)
{
    while (m_pos < m_in.size()) {
        const char op = m_in.at(m_pos++);
        if (uchar(op) == 0x80) { // PROTO
            quint64 p = 0;
            if (!unsignedLE(1, &p) || p > 5)
                return fail(QStringLiteral("protocol %1 (0 to 5 are known)").arg(p));
            m_protocol = int(p);
            continue;
        }
        if (uchar(op) == 0x95) { // FRAME: a length only
            quint64 ignored = 0;
            if (!unsignedLE(8, &ignored))
                return false;
            continue;
        }
        if (op == '.') {
            int result = -1;
            if (!pop(&result))
                return false;
            if (m_pos != m_in.size())
                return fail(QStringLiteral("more after STOP"));
            std::vector<bool> onPath(m_nodes.size(), false);
            *out = value(result, 0, onPath);
            return true;
        }
        Step step = Step::NotMine;
        for (auto f : {&PickleMachine::scalar, &PickleMachine::text, &PickleMachine::container,
                       &PickleMachine::fill, &PickleMachine::stackOrMemo, &PickleMachine::object}) {
            step = (this->*f)(op);
            if (step != Step::NotMine)
                break;
        }
        if (step == Step::Failed)
            return false;
        if (step == Step::NotMine) {
            --m_pos;
            return fail(QStringLiteral("opcode 0x%1, which is not one it knows")
                            .arg(uchar(op), 2, 16, QLatin1Char('0')));
        }
    }
    return fail(QStringLiteral("the stream ends before STOP"));
}

} // namespace gatehouse::Internal

namespace gatehouse::Internal {

PickleMachine::Step PickleMachine::object(char op)
{
    QByteArray module;
    QByteArray name;
    int a = -1;
    int b = -1;
    int c = -1;
    std::vector<int> items;
    switch (uchar(op)) {
    case 'c':
    case 'i': {
        if (!line(&module) || !line(&name))
            return Step::Failed;
        Node global;
        global.kind = Kind::Note;
        global.global = true;
        global.text = QString::fromUtf8(module + '.' + name);
        if (op == 'c')
            return push(std::move(global)) ? Step::Done : Step::Failed;
        if (!popMark(&items))
            return Step::Failed;
        return call(make(std::move(global)), std::move(items)) ? Step::Done : Step::Failed;
    }
    case 0x93: {
        if (!pop(&b) || !pop(&a))
            return Step::Failed;
        const Node &m = m_nodes.at(std::size_t(a));
        const Node &n = m_nodes.at(std::size_t(b));
        if (m.kind != Kind::Text || n.kind != Kind::Text)
            return fail(QStringLiteral("STACK_GLOBAL without a module and a name")), Step::Failed;
        Node global;
        global.kind = Kind::Note;
        global.global = true;
        global.text = m.text + QLatin1Char('.') + n.text;
        return push(std::move(global)) ? Step::Done : Step::Failed;
    }
    case 'R':
    case 0x81:
        if (!pop(&b) || !pop(&a))
            return Step::Failed;
        if (m_nodes.at(std::size_t(b)).kind != Kind::List)
            return fail(QStringLiteral("a call whose arguments are not a tuple")), Step::Failed;
        return call(a, m_nodes.at(std::size_t(b)).children) ? Step::Done : Step::Failed;
    case 0x92:
        if (!pop(&c) || !pop(&b) || !pop(&a))
            return Step::Failed;
        if (m_nodes.at(std::size_t(b)).kind != Kind::List)
            return fail(QStringLiteral("a call whose arguments are not a tuple")), Step::Failed;
        items = m_nodes.at(std::size_t(b)).children;
        items.push_back(c);
        return call(a, std::move(items)) ? Step::Done : Step::Failed;
    case 'o':
        if (!popMark(&items))
            return Step::Failed;
        if (items.empty())
            return fail(QStringLiteral("OBJ without a class")), Step::Failed;
        a = items.front();
        items.erase(items.begin());
        return call(a, std::move(items)) ? Step::Done : Step::Failed;
    case 'b': {
        if (!pop(&b) || !pop(&a))
            return Step::Failed;
        m_nodes.at(std::size_t(a)).state = b;
        m_stack.push_back(a);
        return Step::Done;
    }
    case 0x82:
    case 0x83:
    case 0x84: {
        quint64 code = 0;
        if (!unsignedLE(uchar(op) == 0x84 ? 4 : uchar(op) - 0x81, &code))
            return Step::Failed;
        Node ext;
        ext.kind = Kind::Note;
        ext.global = true;
        ext.text = QStringLiteral("(copyreg extension %1)").arg(code);
        return push(std::move(ext)) ? Step::Done : Step::Failed;
    }
    case 'P':
    case 'Q':
        fail(QStringLiteral("a persistent id: the pickler's reference to an object kept "
                            "elsewhere, which the payload does not hold"));
        return Step::Failed;
    case 0x97:
        fail(QStringLiteral("an out-of-band buffer (protocol 5), which the payload does not "
                            "hold"));
        return Step::Failed;
    case 0x98:
        return Step::Done; // READONLY_BUFFER: the value stays as it is
    default:
        return Step::NotMine;
    }
}

bool PickleMachine::call(int callable, std::vector<int> args)
{
    const Node &f = m_nodes.at(std::size_t(callable));
    const QString name = f.global ? f.text : QStringLiteral("(a computed callable)");
    Node n;
    if (!special(name, args, &n)) {
        n.kind = Kind::Object;
        n.text = name;
        n.children = std::move(args);
    }
    return push(std::move(n));
}

// The few calls whose result is plain data, shown as that data.
bool PickleMachine::special(const QString &name, const std::vector<int> &args, Node *out)
{
    const Node *first = args.empty() ? nullptr : &m_nodes.at(std::size_t(args.front()));
    const bool builtin = name.startsWith(QLatin1String("builtins."))
                         || name.startsWith(QLatin1String("__builtin__."));
    const QString bare = name.section(QLatin1Char('.'), -1);
    if ((name == QLatin1String("datetime.datetime") || name == QLatin1String("datetime.date"))
        && first && (first->kind == Kind::Bytes || first->kind == Kind::Text)) {
        const QString when
            = packedTime(first->kind == Kind::Bytes ? first->bytes : first->text.toLatin1());
        if (when.isEmpty())
            return false;
        out->kind = Kind::Note;
        out->text = name + QLatin1Char('(') + when + QLatin1Char(')');
        return true;
    }
    if (name == QLatin1String("_codecs.encode") && first && first->kind == Kind::Text) {
        out->kind = Kind::Bytes;
        out->bytes = first->text.toLatin1();
        return true;
    }
    if (builtin && (bare == QLatin1String("set") || bare == QLatin1String("frozenset"))) {
        out->kind = Kind::List;
        out->tag = bare;
        if (first && first->kind == Kind::List)
            out->children = first->children;
        return true;
    }
    if (builtin && bare == QLatin1String("bytearray") && first && first->kind == Kind::Bytes) {
        *out = *first;
        out->tag = QStringLiteral("bytearray");
        return true;
    }
    if (name == QLatin1String("copyreg._reconstructor") && first && first->global) {
        out->kind = Kind::Object;
        out->text = first->text;
        if (args.size() == 3 && m_nodes.at(std::size_t(args.at(2))).kind != Kind::Null)
            out->children.push_back(args.at(2));
        return true;
    }
    return false;
}

PayloadValue PickleMachine::value(int index, int depth, std::vector<bool> &onPath)
{
    const DecodeLimits &limits = m_budget.limits();
    if (++m_converted > limits.maxNodes)
        return PayloadValue::note(QStringLiteral("…"));
    if (onPath.at(std::size_t(index)))
        return PayloadValue::note(QStringLiteral("(the value it is inside: a cycle)"));
    const Node &n = m_nodes.at(std::size_t(index));
    PayloadValue v;
    v.kind = n.kind;
    v.boolean = n.boolean;
    v.text = n.text;
    v.bytes = n.bytes;
    v.tag = n.tag;
    const bool nested = !n.children.empty() || n.state >= 0 || n.items >= 0;
    if (!nested)
        return v;
    if (depth >= limits.maxDepth)
        return PayloadValue::note(QStringLiteral("… (nested deeper than %1)").arg(limits.maxDepth));
    onPath.at(std::size_t(index)) = true;
    for (int child : n.children)
        v.children.push_back(value(child, depth + 1, onPath));
    if (n.kind != Kind::Object && (n.state >= 0 || n.items >= 0)) {
        // State given to plain data (BUILD on a dict): shown as an object around it.
        PayloadValue inner = v;
        v = PayloadValue::object(QStringLiteral("(object)"));
        v.children.push_back(std::move(inner));
    }
    for (auto [at, tag] : {std::pair{n.items, "items"}, std::pair{n.state, "state"}}) {
        if (at < 0)
            continue;
        v.children.push_back(value(at, depth + 1, onPath));
        v.children.back().tag = QLatin1String(tag);
    }
    onPath.at(std::size_t(index)) = false;
    return v;
}

} // namespace gatehouse::Internal
