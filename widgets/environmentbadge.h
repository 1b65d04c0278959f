// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"
#include "theme.h"

#include <QLabel>

namespace gatehouse {

// A connection's environment as a badge: a text in bold on the
// environment's colour (theme::environmentBadge), painted again when the
// palette changes (View > Palette).
class EnvironmentBadge : public QLabel
{
    Q_OBJECT
public:
    // text: what the badge says; empty: the label in capitals ("PRODUCTION").
    explicit EnvironmentBadge(const Environment &environment, const QString &text = QString(),
                              QWidget *parent = nullptr);

    Environment environment() const { return m_environment; }
    // The colours it is painted in now.
    theme::Badge colours() const { return m_colours; }

protected:
    bool event(QEvent *event) override;

private:
    void paint();

    Environment m_environment;
    theme::Badge m_colours;
};

} // namespace gatehouse
