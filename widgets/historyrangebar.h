// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QButtonGroup;
class QDateTimeEdit;

namespace gatehouse {

// The charts' time range: live (the last 15 minutes, from the monitor's
// memory), the last hour, 24 hours or 7 days (from the history file, the
// last minutes still live), or a custom range between two date-times.
class HistoryRangeBar : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { Live, LastHour, LastDay, LastWeek, Custom };
    Q_ENUM(Mode)

    explicit HistoryRangeBar(QWidget *parent = nullptr);

    Mode mode() const { return m_mode; }
    void setMode(Mode mode);
    // Live and the last-N ranges: their span back from now (ms).
    qint64 spanMs() const;
    // Custom: the range (local ms since the epoch).
    qint64 customFromMs() const;
    qint64 customToMs() const;
    void setCustomRange(qint64 fromMs, qint64 toMs);

Q_SIGNALS:
    void rangeChanged();

private:
    Mode m_mode = Mode::Live;
    QButtonGroup *m_buttons;
    QDateTimeEdit *m_from;
    QDateTimeEdit *m_to;
};

} // namespace gatehouse
