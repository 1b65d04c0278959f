// SPDX-License-Identifier: MIT
#pragma once

#include "payloadvalue.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <vector>

namespace gatehouse {

class DecodeBudget;

namespace Internal {

// The pickle virtual machine without its dangerous half: it runs the
// opcodes that build data, and where Python would import a global or call
// it, it records the name and the arguments instead. Values live in an
// arena and refer to each other by index, so the memo's shared and
// self-referring values cost nothing and cannot leak.
class PickleMachine
{
public:
    PickleMachine(const QByteArray &input, DecodeBudget &budget);

    // Runs to STOP; the value it leaves, or false with why().
    bool run(PayloadValue *out);
    QString why() const { return m_why; }
    int protocol() const { return m_protocol; }

private:
    struct Node
    {
        PayloadValue::Kind kind = PayloadValue::Kind::Null;
        bool boolean = false;
        bool global = false; // a class or function by name (kind Note)
        QString text;
        QByteArray bytes;
        QString tag;
        std::vector<int> children; // a Map's: key, value, ...
        int state = -1;            // BUILD's argument
        int items = -1;            // what APPENDS or SETITEMS added to an object
    };
    enum class Step { Done, NotMine, Failed };

    bool fail(const QString &what);
    bool take(qint64 n, QByteArray *out);
    bool line(QByteArray *out);
    bool unsignedLE(int n, quint64 *v);
    bool lengthThen(int n, QByteArray *out);
    int make(Node node);
    bool push(Node node);
    bool pop(int *index);
    bool popMark(std::vector<int> *items);
    Node *top(PayloadValue::Kind kind, const char *op);

    Step scalar(char op);
    Step text(char op);
    Step container(char op);
    Step fill(char op);
    Step stackOrMemo(char op);
    Step object(char op);
    bool call(int callable, std::vector<int> args);
    bool special(const QString &name, const std::vector<int> &args, Node *out);

    PayloadValue value(int index, int depth, std::vector<bool> &onPath);

    const QByteArray &m_in;
    DecodeBudget &m_budget;
    qsizetype m_pos = 0;
    int m_protocol = 0;
    std::vector<Node> m_nodes;
    std::vector<int> m_stack;
    std::vector<std::size_t> m_marks;
    QHash<quint64, int> m_memo;
    qint64 m_converted = 0;
    QString m_why;
};

} // namespace Internal

} // namespace gatehouse
