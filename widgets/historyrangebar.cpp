// SPDX-License-Identifier: MIT
#include "historyrangebar.h"

#include <QButtonGroup>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QHBoxLayout>
#include <QToolButton>

namespace gatehouse {

HistoryRangeBar::HistoryRangeBar(QWidget *parent)
    : QWidget(parent)
    , m_buttons(new QButtonGroup(this))
    , m_from(new QDateTimeEdit(this))
    , m_to(new QDateTimeEdit(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    const struct
    {
        Mode mode;
        QString text;
        QString tip;
        const char *name;
    } choices[] = {
        {Mode::Live, tr("Live 15 min"), tr("The last 15 minutes, as they come"), "rangeLive"},
        {Mode::LastHour, tr("1 h"), tr("The last hour, from the history file"), "rangeHour"},
        {Mode::LastDay, tr("24 h"), tr("The last 24 hours, from the history file"), "rangeDay"},
        {Mode::LastWeek, tr("7 d"),
         tr("The last 7 days, from the history file (older than 24 h: one-minute means)"),
         "rangeWeek"},
        {Mode::Custom, tr("Custom…"), tr("A range between two times"), "rangeCustom"},
    };
    for (const auto &c : choices) {
        auto *b = new QToolButton(this);
        b->setText(c.text);
        b->setToolTip(c.tip);
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setObjectName(QLatin1String(c.name));
        m_buttons->addButton(b, int(c.mode));
        layout->addWidget(b);
    }
    m_buttons->button(int(Mode::Live))->setChecked(true);
    const QDateTime now = QDateTime::currentDateTime();
    for (QDateTimeEdit *edit : {m_from, m_to}) {
        edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
        edit->setCalendarPopup(true);
        edit->setVisible(false);
        layout->addWidget(edit);
        connect(edit, &QDateTimeEdit::dateTimeChanged, this, [this] {
            if (m_mode == Mode::Custom)
                Q_EMIT rangeChanged();
        });
    }
    // Given more width than it needs, the buttons stay together at the left.
    layout->addStretch(1);
    m_from->setObjectName(QStringLiteral("rangeFrom"));
    m_to->setObjectName(QStringLiteral("rangeTo"));
    m_from->setDateTime(now.addSecs(-3600));
    m_to->setDateTime(now);
    connect(m_buttons, &QButtonGroup::idClicked, this, [this](int id) { setMode(Mode(id)); });
}

void HistoryRangeBar::setMode(Mode mode)
{
    m_buttons->button(int(mode))->setChecked(true);
    m_from->setVisible(mode == Mode::Custom);
    m_to->setVisible(mode == Mode::Custom);
    if (mode == m_mode)
        return;
    m_mode = mode;
    Q_EMIT rangeChanged();
}

qint64 HistoryRangeBar::spanMs() const
{
    switch (m_mode) {
    case Mode::Live:
        return 15 * 60 * 1000LL;
    case Mode::LastHour:
        return 3600 * 1000LL;
    case Mode::LastDay:
        return 24 * 3600 * 1000LL;
    case Mode::LastWeek:
        return 7 * 24 * 3600 * 1000LL;
    case Mode::Custom:
        return customToMs() - customFromMs();
    }
    return 0;
}

qint64 HistoryRangeBar::customFromMs() const
{
    return m_from->dateTime().toMSecsSinceEpoch();
}

qint64 HistoryRangeBar::customToMs() const
{
    return m_to->dateTime().toMSecsSinceEpoch();
}

void HistoryRangeBar::setCustomRange(qint64 fromMs, qint64 toMs)
{
    m_from->setDateTime(QDateTime::fromMSecsSinceEpoch(fromMs));
    m_to->setDateTime(QDateTime::fromMSecsSinceEpoch(toMs));
}

} // namespace gatehouse
